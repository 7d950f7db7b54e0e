// Lighthouse on the pages of issue 10, as a person on a phone on a slow line would load
// them: mobile preset, simulated Slow 4G, a cold cache each run. Signs in once, runs each
// page RUNS times and prints the median performance score and LCP. Not part of the test
// suite (too slow): `npx just lighthouse`. The figures are in docs/PERFORMANCE.md.
import lighthouse from 'lighthouse';
import { startServer, launchBrowser, login, ADMIN } from './harness.mjs';

const RUNS = Number(process.env.LH_RUNS || 3);
const PORT = 9000 + Math.floor(Math.random() * 500);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const server = await startServer();
const browser = await launchBrowser({ port: PORT });
try {
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  await login(page, server.url, ADMIN.email, ADMIN.password);
  const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const lead = /\/leads\/\d+(?=")/.exec(await (await context.request.get(new URL('/leads', server.url).href)).text())[0];
  await context.close();

  const pages = ['/login', '/home', '/leads', '/clients', lead, '/m/leads-mobile'];
  console.log(`page                 score  LCP (ms)   runs: scores`);
  for (const path of pages) {
    const scores = [];
    const lcps = [];
    const cls = [];
    for (let i = 0; i < RUNS; i++) {
      const result = await lighthouse(new URL(path, server.url).href, {
        port: PORT, output: 'json', logLevel: 'error', onlyCategories: ['performance'],
        formFactor: 'mobile', throttlingMethod: 'simulate', // the defaults: Moto G Power, Slow 4G
        extraHeaders: path === '/login' ? {} : { Cookie: cookie },
      });
      const lhr = result.lhr;
      if (lhr.runtimeError) throw new Error(`${path}: ${lhr.runtimeError.message}`);
      scores.push(Math.round(lhr.categories.performance.score * 100));
      lcps.push(lhr.audits['largest-contentful-paint'].numericValue);
      cls.push(lhr.audits['cumulative-layout-shift'].numericValue);
    }
    console.log(`${path.padEnd(20)} ${String(median(scores)).padStart(5)}  ${String(Math.round(median(lcps))).padStart(8)}   ${scores.join(' ')}  (CLS ${median(cls).toFixed(3)})`);
  }
} finally {
  await browser.close();
  await server.stop();
}
