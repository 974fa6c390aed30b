// What every mock vendor server keeps, whatever wire format it speaks: the recorded
// requests, the canned reply, the abort count, fault counters, and the handle tests
// hold (MockVendor). Each server only adds its own routing and wire format.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FaultState } from './faults.ts';
import { closeServer } from './http.ts';
import type { MockVendor, RecordedRequest, ScriptedReply } from './types.ts';

export interface ServerState {
  requests: RecordedRequest[];
  script: Partial<ScriptedReply> | undefined;
  aborted: number;
  seq: number;
  faults: FaultState;
  closing: boolean;
}

/** Per-request context: `signal` aborts when the connection goes away early. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  signal: AbortSignal;
  /** Drops the connection on purpose (not counted as a client abort). */
  destroy: () => void;
}

export function newState(): ServerState {
  return { requests: [], script: undefined, aborted: 0, seq: 0, faults: { flakyCalls: 0 }, closing: false };
}

/** Counts a client that goes away before the response ended as an abort, unless we dropped it. */
export function exchangeFor(req: IncomingMessage, res: ServerResponse, state: ServerState): Exchange {
  const controller = new AbortController();
  let droppedByUs = false;
  res.on('close', () => {
    if (res.writableFinished) return;
    if (!droppedByUs && !state.closing) state.aborted++;
    controller.abort();
  });
  const destroy = (): void => {
    droppedByUs = true;
    res.destroy();
  };
  return { req, res, signal: controller.signal, destroy };
}

/** The handle a test holds: base URL (host, port and the vendor's version path), recordings, script, reset, close. */
export function vendorHandle(server: Server, state: ServerState, host: string, port: number, path: string): MockVendor {
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`,
    port,
    requests: state.requests,
    get aborted() {
      return state.aborted;
    },
    reset() {
      state.requests.length = 0;
      state.script = undefined;
      state.aborted = 0;
      state.seq = 0;
      state.faults.flakyCalls = 0;
    },
    script(next) {
      state.script = { ...next };
    },
    close() {
      state.closing = true;
      return closeServer(server);
    },
  };
}
