import { EventEmitter } from 'node:events';

/**
 * Tells the upstream call and the pipeline that the client went away. undici takes an EventEmitter
 * with `aborted` and an 'abort' event as its signal; this is much lighter than an AbortController
 * (an EventTarget and an AbortSignal) on every request.
 */
export class ClientLink extends EventEmitter {
  aborted = false;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }
}
