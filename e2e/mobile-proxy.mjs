// A byte-counting TCP proxy in front of the test server, for the mobile browser tests.
// Every byte the browser and its service worker exchange with the server crosses it, so
// it measures what a load really costs on the wire (headers and compressed bodies), and
// it can play a dead network (connections refused and cut) that no browser cache hides.
import net from 'node:net';

/**
 * @param {string} target the server's base URL (http://127.0.0.1:PORT)
 * @returns {Promise<{url: string, down: boolean, bytes: () => {down: number, up: number}, reset: () => void, close: () => Promise<void>}>}
 */
export async function startProxy(target) {
  const { hostname, port } = new URL(target);
  const sockets = new Set();
  let down = 0; // bytes server → browser
  let up = 0; // bytes browser → server
  const state = {
    down: false,
    bytes: () => ({ down, up }),
    reset: () => { down = 0; up = 0; },
  };
  const server = net.createServer((client) => {
    if (state.down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(port), hostname);
    sockets.add(client);
    sockets.add(upstream);
    client.on('data', (d) => { up += d.length; });
    upstream.on('data', (d) => { down += d.length; });
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    url: `http://127.0.0.1:${server.address().port}`,
    /** setDown(true) cuts every open connection and refuses new ones. */
    setDown(v) {
      state.down = v;
      if (v) for (const s of sockets) s.destroy();
    },
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  });
}
