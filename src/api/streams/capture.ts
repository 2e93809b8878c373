/**
 * A socket factory that hands every text frame of a live socket on (`onFrame`) before the stream
 * parses it: how the recorder (src/backtest/recorder.ts) and a shadow run's live feed
 * (src/venues/shadow/live-frames.ts) see the raw frames. A socket closed, terminated or failed hands
 * nothing more on.
 */
import type { WsFactory } from './socket.ts';

/** Wraps `base`: each text frame of a socket still open goes to `onFrame`, then to the stream. */
export function captureFrames(base: WsFactory, onFrame: (text: string) => void): WsFactory {
  return (url, h) => {
    let dead = false;
    const inner = base(url, {
      onOpen: () => h.onOpen(),
      onText: (text) => {
        if (!dead) onFrame(text);
        h.onText(text);
      },
      onBinary: () => h.onBinary(),
      onClose: (code, reason) => {
        dead = true;
        h.onClose(code, reason);
      },
      onError: (err) => {
        dead = true;
        h.onError(err);
      },
    });
    return {
      send: (t) => inner.send(t),
      terminate: () => {
        dead = true;
        inner.terminate();
      },
      close: () => {
        dead = true;
        inner.close();
      },
    };
  };
}
