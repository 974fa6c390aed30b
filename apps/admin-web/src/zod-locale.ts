// zod registers its English messages as a module side effect, which the production
// bundle tree-shakes away (zod's package is marked side-effect free): without this the
// shared schema's errors all read "Invalid input". jitless: zod would otherwise probe
// `new Function`, which the page's CSP (no 'unsafe-eval') refuses with a console error.
// Imported first by main.tsx.
import { config } from 'zod';
import en from 'zod/v4/locales/en.js';

config({ ...en(), jitless: true });
