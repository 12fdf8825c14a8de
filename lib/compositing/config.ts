// Process-wide sharp/libvips settings for the compositing engine and the small helpers around them
// (a concurrency gate and a pool of output buffers). Pure image code: no database or Temporal imports.
import os from 'node:os';
import sharp from 'sharp';
import { MAX_INPUT_PIXELS } from '../images/limits';
import { Gate } from '../gate';

/**
 * One libvips worker thread per pipeline. sharp already defaults to 1 on glibc Linux; setting it explicitly keeps
 * the behavior the same on every platform. Measured on the 2-core target: several small single-threaded
 * pipelines in flight (parallelism comes from the libuv pool running them side by side) beat fewer pipelines
 * with 2 threads each, and a mockup has little to split anyway (PNG decoding is sequential).
 */
export const VIPS_THREADS_PER_PIPELINE = 1;

/**
 * How many composites run at once in this process (the rest wait in a FIFO queue): 2 per core, the best
 * throughput in the reference measurements. It also bounds the memory of work in flight (one blank-sized output
 * buffer and one decoded design each), whatever the caller's concurrency.
 */
export const DEFAULT_MAX_PARALLEL = Math.max(2, 2 * os.availableParallelism());

/**
 * Designs above this many pixels are refused with DesignImageError (checked from the header, before decoding): the
 * same bound as uploads, so a design refused as an upload is refused from any URL too.
 */
export const MAX_DESIGN_PIXELS = MAX_INPUT_PIXELS;

/**
 * Blanks from any source pass the same pixel bound as designs (MAX_INPUT_PIXELS, checked from the header before
 * any decode), and a blank photo larger than this on its long side is shrunk while it is decoded: the mockup has
 * the blank's size, and catalogue blanks are 2000 px.
 */
export const MAX_BLANK_SIDE = 2400;

let configured = false;
/** Applied once on import of the compositing engine; process-wide (sharp's settings are global). */
export function configureSharp(): void {
  if (configured) return;
  configured = true;
  sharp.concurrency(VIPS_THREADS_PER_PIPELINE);
  // libvips' operation cache only pays off when the same operation runs twice on the same input; every request
  // here has a new design and raw buffers, so it would only hold memory (and make benchmarks lie).
  sharp.cache(false);
}
configureSharp();

export { Gate };
export const compositeGate = new Gate(DEFAULT_MAX_PARALLEL);

/** Change how many composites may run at once in this process (default 2 per core). */
export function setMaxParallelComposites(n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`invalid parallelism ${n}`);
  compositeGate.limit = n;
}

/**
 * Reusable output buffers (a blank-sized RGB copy per composite in flight): a fresh 12 MB allocation costs page
 * faults and GC pressure on every request. At most `max` idle buffers per size are kept, and at most `maxBytes`
 * in all: blanks of many sizes (clients' own photos) evict the sizes used least recently instead of growing the
 * pool without bound.
 */
export class BufferPool {
  /** idle buffers by size; Map order is recency of use (least recent first) */
  private readonly free = new Map<number, Buffer[]>();
  private bytes = 0;
  constructor(
    private readonly max: number,
    private readonly maxBytes = DEFAULT_POOL_BYTES,
  ) {}

  take(size: number): Buffer {
    const list = this.free.get(size);
    const buf = list?.pop();
    if (!buf) return Buffer.allocUnsafe(size);
    if (list!.length === 0) this.free.delete(size); // no entry without buffers: the map cannot fill with sizes
    this.bytes -= buf.length;
    return buf;
  }

  give(buf: Buffer): void {
    const size = buf.length;
    if (size > this.maxBytes || this.max < 1) return; // never kept, so never an entry
    const list = this.free.get(size);
    if (list) {
      this.free.delete(size);
      this.free.set(size, list); // most recently used
      if (list.length >= this.max) return;
    }
    for (const [other, buffers] of this.free) {
      if (this.bytes + size <= this.maxBytes) break;
      if (other === size) continue;
      for (const b of buffers) this.bytes -= b.length;
      this.free.delete(other);
    }
    if (this.bytes + size > this.maxBytes) return;
    if (list) list.push(buf);
    else this.free.set(size, [buf]);
    this.bytes += size;
  }

  /** Sizes with idle buffers (map entries); never more than the buffers held. */
  get sizes(): number {
    return this.free.size;
  }

  /** Bytes held by idle buffers. */
  get pooledBytes(): number {
    return this.bytes;
  }

  clear(): void {
    this.free.clear();
    this.bytes = 0;
  }
}

/** Idle output buffers kept at most: one 2000x2000 RGB buffer (12 MB) per composite that may run at once. */
export const DEFAULT_POOL_BYTES = DEFAULT_MAX_PARALLEL * 2000 * 2000 * 3;

export const outputPool = new BufferPool(DEFAULT_MAX_PARALLEL);
