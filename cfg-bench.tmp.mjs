import { initializeConfig } from 'lighthouse/core/config/config.js';
const { LIGHTHOUSE_SETTINGS, memoiseMessageFormat } = await import('/work/wt-scheduler/dist/runner/gather/lighthouse.js');
const { mobileGatherer, MOBILE_ARTIFACT, MOBILE_AUDIT, WebgradeMobileAudit } = await import('/work/wt-scheduler/dist/runner/gather/lighthouse-mobile.js');
if (process.argv[2] === 'memo') memoiseMessageFormat();
for (let i = 0; i < 6; i++) {
  const settings = { ...LIGHTHOUSE_SETTINGS, onlyCategories: ['performance','accessibility','best-practices'], onlyAudits: [MOBILE_AUDIT] };
  const config = { extends: 'lighthouse:default', settings, artifacts: [{ id: MOBILE_ARTIFACT, gatherer: { implementation: mobileGatherer({ screenshot: false }) } }], audits: [{ implementation: WebgradeMobileAudit }] };
  const t = performance.now();
  await initializeConfig('navigation', config, { onlyCategories: settings.onlyCategories });
  console.log(i, Math.round(performance.now() - t), 'ms');
}
