// Imported first by every app: records each Content-Security-Policy violation the page raises (a dropped inline
// style, a blocked script), so a browser test can assert there were none and a user sees a note in the console.
// Pages carry no zod (its schemas live on the host side, protocolSchemas.ts), so nothing probes `new Function` here.
declare global {
  interface Window {
    __coevolveCspViolations?: { directive: string; blocked: string; sample: string }[];
  }
}

const violations: NonNullable<Window['__coevolveCspViolations']> = (window.__coevolveCspViolations ??= []);
document.addEventListener('securitypolicyviolation', (e) => {
  violations.push({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample });
  console.warn(`coevolve webview: CSP refused ${e.violatedDirective} (${e.blockedURI || e.sample || 'inline'})`);
});

export {};
