// zod compiles parsers with `new Function` unless told not to, and even its caught probe for eval fires a
// securitypolicyviolation under the webview CSP (no 'unsafe-eval'). Imported first by rpc.ts, so it runs before
// protocol.ts builds any schema, in every page of every host.
import { z } from 'zod';

z.config({ jitless: true });
