// Minimum s-t cut on a 4-connected pixel grid (Boykov-Kolmogorov max-flow: two search trees grown from the source
// and the sink, augmenting along the paths where they meet, orphans re-adopted), for the seeded garment segmentation
// (garment-graphcut.ts). Integer capacities. Pure code on typed arrays.

/** Directions of a pixel's 4 neighbours: left, right, up, down (d ^ 1 is the opposite direction). */
const FREE = 0;
const SOURCE = 1;
const SINK = 2;
const NONE = -1;
const TERMINAL = 4;
const ORPHAN = 5;

export interface GridGraph {
  width: number;
  height: number;
  /**
   * Terminal capacity per pixel: > 0 from the source (the cost of labelling it sink), < 0 to the sink (the cost of
   * labelling it source), as the difference of the two.
   */
  terminal: Int32Array;
  /** Capacity of the edge from pixel i to its neighbour in direction d, at i * 4 + d (0 at the image's edge). */
  edges: Int32Array;
}

/**
 * The minimum cut: 1 for the pixels on the source's side, 0 for the sink's. `terminal` and `edges` are used as the
 * residual capacities and are left modified.
 */
export function minCut(g: GridGraph): Uint8Array {
  const { width: w, height: h, terminal: tr, edges: r } = g;
  const n = w * h;
  const tree = new Uint8Array(n);
  const parent = new Int8Array(n).fill(NONE);
  const ts = new Int32Array(n);
  const dist = new Int32Array(n);
  const queue = new Int32Array(n + 1);
  const inQueue = new Uint8Array(n);
  let qHead = 0;
  let qTail = 0;
  const activate = (i: number) => {
    if (inQueue[i]) return;
    inQueue[i] = 1;
    queue[qTail] = i;
    qTail = qTail === n ? 0 : qTail + 1;
  };
  const nb = (i: number, d: number) => (d === 0 ? i - 1 : d === 1 ? i + 1 : d === 2 ? i - w : i + w);
  const has = (i: number, d: number) => {
    const x = i % w;
    return d === 0 ? x > 0 : d === 1 ? x < w - 1 : d === 2 ? i >= w : i < n - w;
  };
  for (let i = 0; i < n; i++) {
    if (tr[i]! > 0) tree[i] = SOURCE;
    else if (tr[i]! < 0) tree[i] = SINK;
    else continue;
    parent[i] = TERMINAL;
    dist[i] = 1;
    activate(i);
  }
  let time = 0;
  const orphans: number[] = [];

  for (;;) {
    // growth: from an active node, until the trees touch
    let s = -1;
    let t = -1;
    let mid = -1; // the edge from s to t (direction from s)
    while (qHead !== qTail && s < 0) {
      const i = queue[qHead]!;
      if (tree[i] === FREE) {
        inQueue[i] = 0;
        qHead = qHead === n ? 0 : qHead + 1;
        continue;
      }
      const ti = tree[i]!;
      for (let d = 0; d < 4; d++) {
        if (!has(i, d)) continue;
        const j = nb(i, d);
        const cap = ti === SOURCE ? r[i * 4 + d]! : r[j * 4 + (d ^ 1)]!;
        if (cap <= 0) continue;
        const tj = tree[j]!;
        if (tj === FREE) {
          tree[j] = ti;
          parent[j] = d ^ 1;
          ts[j] = ts[i]!;
          dist[j] = dist[i]! + 1;
          activate(j);
        } else if (tj !== ti) {
          if (ti === SOURCE) {
            s = i;
            t = j;
            mid = d;
          } else {
            s = j;
            t = i;
            mid = d ^ 1;
          }
          break;
        } else if (ts[j]! <= ts[i]! && dist[j]! > dist[i]!) {
          parent[j] = d ^ 1;
          ts[j] = ts[i]!;
          dist[j] = dist[i]! + 1;
        }
      }
      if (s < 0) {
        inQueue[i] = 0;
        qHead = qHead === n ? 0 : qHead + 1;
      }
    }
    if (s < 0) break;
    time++;

    // augmentation: the bottleneck along source .. s -> t .. sink
    let f = r[s * 4 + mid]!;
    for (let k = s; ;) {
      const p = parent[k]!;
      if (p === TERMINAL) {
        f = Math.min(f, tr[k]!);
        break;
      }
      const q = nb(k, p);
      f = Math.min(f, r[q * 4 + (p ^ 1)]!);
      k = q;
    }
    for (let k = t; ;) {
      const p = parent[k]!;
      if (p === TERMINAL) {
        f = Math.min(f, -tr[k]!);
        break;
      }
      f = Math.min(f, r[k * 4 + p]!);
      k = nb(k, p);
    }
    r[s * 4 + mid]! -= f;
    r[t * 4 + (mid ^ 1)]! += f;
    for (let k = s; ;) {
      const p = parent[k]!;
      if (p === TERMINAL) {
        tr[k]! -= f;
        if (tr[k] === 0) {
          parent[k] = ORPHAN;
          orphans.push(k);
        }
        break;
      }
      const q = nb(k, p);
      r[q * 4 + (p ^ 1)]! -= f;
      r[k * 4 + p]! += f;
      if (r[q * 4 + (p ^ 1)] === 0) {
        parent[k] = ORPHAN;
        orphans.push(k);
      }
      k = q;
    }
    for (let k = t; ;) {
      const p = parent[k]!;
      if (p === TERMINAL) {
        tr[k]! += f;
        if (tr[k] === 0) {
          parent[k] = ORPHAN;
          orphans.push(k);
        }
        break;
      }
      const q = nb(k, p);
      r[k * 4 + p]! -= f;
      r[q * 4 + (p ^ 1)]! += f;
      if (r[k * 4 + p] === 0) {
        parent[k] = ORPHAN;
        orphans.push(k);
      }
      k = q;
    }

    // adoption: each orphan finds a new parent in its tree whose path reaches the terminal, or is freed
    while (orphans.length) {
      const i = orphans.pop()!;
      const ti = tree[i]!;
      let best = -1;
      let bestD = Infinity;
      for (let d = 0; d < 4; d++) {
        if (!has(i, d)) continue;
        const j = nb(i, d);
        if (tree[j] !== ti) continue;
        const cap = ti === SOURCE ? r[j * 4 + (d ^ 1)]! : r[i * 4 + d]!;
        if (cap <= 0) continue;
        // trace j's origin
        let k = j;
        let len = 0;
        for (;;) {
          if (ts[k] === time) {
            len += dist[k]!;
            break;
          }
          const p = parent[k]!;
          len++;
          if (p === TERMINAL) {
            ts[k] = time;
            dist[k] = 1;
            break;
          }
          if (p === ORPHAN || p === NONE) {
            len = Infinity;
            break;
          }
          k = nb(k, p);
        }
        if (len === Infinity) continue;
        if (len < bestD) {
          bestD = len;
          best = d;
        }
        // mark the path's distances for the next traces
        for (let m = j, dm = len; ts[m] !== time; m = nb(m, parent[m]!), dm--) {
          ts[m] = time;
          dist[m] = dm;
        }
      }
      if (best >= 0) {
        parent[i] = best;
        ts[i] = time;
        dist[i] = bestD + 1;
        continue;
      }
      // no parent: free it; neighbours that could reach it become active, its children orphans
      for (let d = 0; d < 4; d++) {
        if (!has(i, d)) continue;
        const j = nb(i, d);
        if (tree[j] !== ti) continue;
        const cap = ti === SOURCE ? r[j * 4 + (d ^ 1)]! : r[i * 4 + d]!;
        if (cap > 0) activate(j);
        const pj = parent[j]!;
        if (pj !== TERMINAL && pj !== ORPHAN && pj !== NONE && nb(j, pj) === i) {
          parent[j] = ORPHAN;
          orphans.push(j);
        }
      }
      tree[i] = FREE;
      parent[i] = NONE;
    }
  }
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = tree[i] === SOURCE ? 1 : 0;
  return out;
}
