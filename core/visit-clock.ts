/**
 * How the visit runs the page's clock (`--visit-clock`, gather/visit.ts VisitOptions `clock`): `real` loads and
 * settles the page on real time and then runs CDP virtual time on; `page` puts the page on a clock of our own from
 * its first byte (gather/visit-clock.ts). Here, apart from the browser code, because the CLI, the results rows and
 * the queue's checks name the modes too.
 */
export type VisitClockMode = 'real' | 'page';
export const VISIT_CLOCKS: readonly VisitClockMode[] = ['real', 'page'];
/** The visit's clock when no option says. */
export const DEFAULT_VISIT_CLOCK: VisitClockMode = 'real';
