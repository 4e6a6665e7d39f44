/**
 * The deadlines of upstream calls in flight (first byte, silence between chunks), watched by one
 * timer that sweeps them, instead of a timer per call.
 *
 * undici's own header and body timeouts allocate a timer object per call whenever a connection
 * moves from one timeout to another (first byte, body, keep-alive), and its coarse timers stay in
 * its list until its next tick, half a second on: under load every call's timers outlived two of
 * V8's scavenges and were copied and promoted, a sixth of what the scavenges copied. Here a call is
 * linked into a list through its own fields (nothing allocated to watch it, to refresh it or to stop
 * watching it), and a sweep every `tick` fails those past their deadline.
 */

/** A call watched: the list's links and its deadline live on the call itself. */
export interface Watched {
  /** performance.now() at which it expires. */
  deadlineAt: number;
  prevWatched: Watched | undefined;
  nextWatched: Watched | undefined;
  /** Whether it is in the list. */
  watched: boolean;
  /**
   * Its deadline passed (it is out of the list already): it fails, or watches itself again (a
   * body its reader paused is not silent on the upstream's account).
   */
  expired(): void;
}

/** The sweep's period for the shortest timeout in use: an eighth of it, from 5 ms to 250 ms. */
export const sweepTickMs = (shortestMs: number): number =>
  Math.min(250, Math.max(5, Math.round(shortestMs / 8)));

export class CallDeadlines {
  #head: Watched | undefined;
  #shortest = Infinity;
  #tick = 250;
  #timer: NodeJS.Timeout | undefined;
  #armed = false;

  /** Watches `call` (again): it expires `ms` from now unless watched again or let go first. */
  watch(call: Watched, ms: number): void {
    call.deadlineAt = performance.now() + ms;
    if (!call.watched) {
      call.watched = true;
      call.prevWatched = undefined;
      call.nextWatched = this.#head;
      if (this.#head) this.#head.prevWatched = call;
      this.#head = call;
    }
    if (ms < this.#shortest) this.#shorter(ms);
    if (!this.#armed) this.#arm();
  }

  /** Stops watching `call` (answered, failed or aborted); nothing when it is not watched. */
  release(call: Watched): void {
    if (!call.watched) return;
    call.watched = false;
    const { prevWatched: prev, nextWatched: next } = call;
    if (prev) prev.nextWatched = next;
    else this.#head = next;
    if (next) next.prevWatched = prev;
    call.prevWatched = undefined;
    call.nextWatched = undefined;
  }

  /** Stops the sweep (the upstream is closing); calls still watched are let go. */
  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armed = false;
    while (this.#head) this.release(this.#head);
  }

  #shorter(ms: number): void {
    this.#shortest = ms;
    const tick = sweepTickMs(ms);
    if (tick === this.#tick) return;
    this.#tick = tick;
    // A timer's period is fixed: a shorter one replaces it.
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armed = false;
  }

  #arm(): void {
    this.#armed = true;
    if (this.#timer) this.#timer.refresh();
    else this.#timer = setTimeout(this.#sweep, this.#tick).unref();
  }

  #sweep = (): void => {
    this.#armed = false;
    const now = performance.now();
    let call = this.#head;
    while (call) {
      // What `expired` does to the list (watching itself again, at the head) cannot skip the rest.
      const next = call.nextWatched;
      if (call.deadlineAt <= now) {
        this.release(call);
        call.expired();
      }
      call = next;
    }
    if (this.#head && !this.#armed) this.#arm();
  };
}
