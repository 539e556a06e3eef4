import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';

/**
 * A streamed answer's body, as undici's own `Pool.request` hands one out: a Readable fed by the
 * exchange's handler, that pauses the socket while its buffer is full and resumes it when read
 * (so a reader under flow control stops the server's sending rather than buffering it), and
 * aborts the request when destroyed before its end.
 */
export class ResponseBody extends Readable {
  /** undici delivered the whole body (whether or not it was read): nothing is left to abort. */
  complete = false;

  constructor(private readonly controller: Dispatcher.DispatchController) {
    super();
  }

  /** The last bytes arrived. */
  finish(): void {
    this.complete = true;
    this.push(null);
  }

  override _read(): void {
    this.controller.resume();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.complete && !this.controller.aborted)
      this.controller.abort(err ?? new Error('the answer was not read to its end'));
    callback(err);
  }

  /**
   * Drops a body that will not be read (further). Destroying it before its end makes it emit
   * 'error' only when given one; a listener first, so an unread body never becomes an uncaught exception.
   */
  discard(): void {
    this.on('error', ignore);
    this.destroy();
  }
}

function ignore(): void {
  /* whoever stopped reading reports why */
}
