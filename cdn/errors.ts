/** The two ways the CDN cache cannot serve a URL (a module of their own, so that every cdn/ module can use them). */

/** Our limitation (registry unreachable, over a cap, refused URL): the CDN answer is `unavailable`. */
export class UnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnavailableError';
  }
}

/** The registry says it does not exist: a defect of the page; the CDN answer is `not-found`. */
export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}
