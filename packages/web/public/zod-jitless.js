// Loaded as a plain script before the app's modules, because it must run before zod does.
// zod probes `new Function('')` as soon as its first object schema is built, to choose a faster
// compiled parser. The app's Content-Security-Policy has no 'unsafe-eval', so the browser
// reports that probe as a violation even though zod catches it; jitless mode skips it.
globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig || {}, { jitless: true });
