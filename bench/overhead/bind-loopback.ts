// Preload (`node --import`) for Portkey, which listens on every interface: any listen() on a
// port without a host is bound to 127.0.0.1 instead.
import net from 'node:net';

const HOST = '127.0.0.1';
const original = net.Server.prototype.listen;

function isPort(v: unknown): boolean {
  return typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v));
}

net.Server.prototype.listen = function listen(this: net.Server, ...args: any[]) {
  if (isPort(args[0])) {
    if (args[1] === undefined || args[1] === null || args[1] === '0.0.0.0' || args[1] === '::') args[1] = HOST;
    else if (typeof args[1] !== 'string') args.splice(1, 0, HOST);
  } else if (args[0] && typeof args[0] === 'object' && !('path' in args[0]) && !('fd' in args[0]) && !('handle' in args[0])) {
    const host = args[0].host;
    if (host === undefined || host === '0.0.0.0' || host === '::') args[0] = { ...args[0], host: HOST };
  }
  return original.apply(this, args as Parameters<typeof original>);
} as typeof original;
