/**
 * The lists of an inverted-file vector index (issue 17), grown by splitting. Every chunk vector belongs to the
 * list of its nearest centroid (largest dot product: vectors are unit length); a search compares the query with
 * the vectors of the `probes` lists whose centroids are nearest to it. Where an HNSW insert walks a graph and
 * rewrites its neighbours' pages (~0.45 ms a vector on PGlite's one thread), joining a list costs a dot product a
 * centroid.
 *
 * Grown, not trained: k-means wants the whole collection first, and a home directory arrives file by file over
 * hours; training on the first files and re-training later would move every vector at once. Here a list that
 * outgrows its bound is split in two by spherical 2-means over its own vectors: bounded, local work whenever it
 * falls due, and the lists follow the data as it comes (a folder of code after a folder of papers gets lists of
 * its own). A centroid is the normalised sum of its list's vectors, kept as they join.
 *
 * Hand-written because this is the index layout (the brief's "our core"): what a vector costs to add and a search
 * to read is decided here, next to the keyword index's blocks.
 *
 * Measured by bench:vector-lists (docs/benchmarks/corpus.md, stop 56); the store keeps the tree in vector_nodes
 * and the lists' sums in vector_sums (sql/0021, vector-lists.ts).
 */

const dot = (a: Float32Array, at: number, q: Float32Array, qAt: number, dim: number): number => {
  let s = 0;
  for (let d = 0; d < dim; d++) s += a[at + d]! * q[qAt + d]!;
  return s;
};

/** Scales `v[at .. at + dim)` to unit length in place (a zero vector stays zero). */
export function normalizeAt(v: Float32Array, at: number, dim: number): void {
  let s = 0;
  for (let d = 0; d < dim; d++) s += v[at + d]! * v[at + d]!;
  if (s === 0) return;
  const inv = 1 / Math.sqrt(s);
  for (let d = 0; d < dim; d++) v[at + d]! *= inv;
}

/**
 * The lists' centroids, and the tree their splits made. Each split turns a list's node into the parent of two new
 * nodes (the left keeps the list's number, the right is a new list), so the tree holds every list as a leaf, and
 * an inner node's sum is its leaves' sums. A vector finds its list down the tree, keeping the `beam` best nodes a
 * level (tens of dot products where comparing every centroid costs thousands: 0.2 ms a vector at 2,300 lists);
 * a search compares the query with every list's centroid (once a query) for the nearest `probes`.
 */
/** A node of the tree as stored: its parent (-1: the root), its first child (-1: a leaf), its list (-1: inner). */
export interface TreeNode {
  node: number;
  parent: number;
  child: number;
  list: number;
}

export class ListTree {
  /** Sums of the vectors under each node, `dim` floats a node; `units` the same made unit length. */
  private sums: Float32Array;
  private units: Float32Array;
  private parent: Int32Array;
  /** An inner node's first child (the second is the next node); -1 for a leaf. */
  private child: Int32Array;
  /** A leaf's list; -1 for an inner node. */
  private listOf: Int32Array;
  /** A list's leaf. */
  private leafOf: number[] = [];
  private nodes = 0;

  constructor(readonly dim: number, capacity = 64) {
    if (!Number.isInteger(dim) || dim < 1) throw new RangeError(`ListTree: bad dimension ${dim}`);
    this.sums = new Float32Array(capacity * dim);
    this.units = new Float32Array(capacity * dim);
    this.parent = new Int32Array(capacity);
    this.child = new Int32Array(capacity);
    this.listOf = new Int32Array(capacity);
  }

  /** Lists so far (0 before the first vector). */
  get count(): number {
    return this.leafOf.length;
  }

  /** A list's centroid (unit length; a view, valid until the next change). */
  centroid(list: number): Float32Array {
    const node = this.leaf(list);
    return this.units.subarray(node * this.dim, (node + 1) * this.dim);
  }

  /**
   * A tree as stored: its nodes in order (numbered 0, 1, ... as they were made) and each list's sum (a list
   * without one starts from zero). An inner node's sum is its leaves' sums, added up here.
   */
  static restore(dim: number, nodes: readonly TreeNode[], sums: ReadonlyMap<number, Float32Array>): ListTree {
    const tree = new ListTree(dim, Math.max(1, nodes.length));
    for (const [i, n] of nodes.entries()) {
      if (n.node !== i || n.parent >= i || (n.child >= 0 && n.child <= i) || (n.child < 0) !== (n.list >= 0)) {
        throw new Error(`ListTree.restore: node ${i} of ${nodes.length} is not a tree's (${JSON.stringify(n)})`);
      }
      const sum = n.list >= 0 ? sums.get(n.list) : undefined;
      const node = tree.node(n.parent, sum ?? new Float32Array(dim));
      tree.child[node] = n.child;
      tree.listOf[node] = n.list;
      if (n.list >= 0) tree.leafOf[n.list] = node;
    }
    if (tree.leafOf.length !== nodes.filter((n) => n.list >= 0).length || tree.leafOf.some((node) => node === undefined)) {
      throw new Error('ListTree.restore: the lists are not numbered 0, 1, ... without gaps');
    }
    // Children come after their parent: from the last node back, each adds its (complete) sum to its parent's.
    for (let node = tree.nodes - 1; node > 0; node--) {
      const parent = tree.parent[node]!;
      for (let d = 0; d < dim; d++) tree.sums[parent * dim + d]! += tree.sums[node * dim + d]!;
    }
    for (let node = 0; node < tree.nodes; node++) {
      tree.units.set(tree.sums.subarray(node * dim, (node + 1) * dim), node * dim);
      normalizeAt(tree.units, node * dim, dim);
    }
    return tree;
  }

  /** The tree's nodes as stored (restore's input). */
  shape(): TreeNode[] {
    return Array.from({ length: this.nodes }, (_, node) => ({ node, parent: this.parent[node]!, child: this.child[node]!, list: this.listOf[node]! }));
  }

  /** A copy of a list's sum of vectors. */
  sum(list: number): Float32Array {
    const node = this.leaf(list);
    return this.sums.slice(node * this.dim, (node + 1) * this.dim);
  }

  /** The first list, holding `vector` (the tree must be empty); answers 0. */
  start(vector: Float32Array): number {
    if (this.nodes > 0) throw new Error('ListTree.start: the tree has lists already');
    const node = this.node(-1, vector);
    this.listOf[node] = 0;
    this.leafOf.push(node);
    return 0;
  }

  /** The list a vector joins: down the tree, the `beam` nodes nearest to it kept a level (-1 when there is none). */
  assign(vector: Float32Array, beam = 4): number {
    if (this.nodes === 0) return -1;
    let frontier = [0];
    for (;;) {
      const next: number[] = [];
      for (const node of frontier) {
        const first = this.child[node]!;
        if (first < 0) next.push(node);
        else next.push(first, first + 1);
      }
      if (next.length === frontier.length) break; // all leaves
      frontier = this.best(next, vector, beam);
    }
    return this.listOf[this.best(frontier, vector, 1)[0]!]!;
  }

  /** A vector joins `list`: its centroid and its ancestors' move towards it. */
  join(list: number, vector: Float32Array): void {
    for (let node = this.leaf(list); node >= 0; node = this.parent[node]!) this.addTo(node, vector);
  }

  /**
   * `list` is split as `split` says (its vectors' two sides' sums): its leaf becomes the parent of two leaves, the
   * first keeping the list's number, the second a new list, whose number is answered.
   */
  split(list: number, split: Split): number {
    const node = this.leaf(list);
    const left = this.node(node, split.sums[0]);
    const right = this.node(node, split.sums[1]);
    if (right !== left + 1) throw new Error('ListTree: children must be adjacent');
    this.child[node] = left;
    this.listOf[node] = -1;
    this.listOf[left] = list;
    this.leafOf[list] = left;
    const added = this.leafOf.length;
    this.listOf[right] = added;
    this.leafOf.push(right);
    return added;
  }

  /** The `p` lists nearest to `query`, nearest first (ties: the lower number). */
  nearestLists(query: Float32Array, p: number): number[] {
    return this.best(this.leafOf, query, p).map((node) => this.listOf[node]!);
  }

  /** The `k` of `nodes` whose centroids have the largest dot products with `v`, best first (ties: as given). */
  private best(nodes: readonly number[], v: Float32Array, k: number): number[] {
    const out: number[] = [];
    const scores: number[] = [];
    if (k <= 0) return out;
    for (const node of nodes) {
      const s = dot(this.units, node * this.dim, v, 0, this.dim);
      if (out.length === k && s <= scores[k - 1]!) continue;
      if (out.length < k) {
        out.push(node);
        scores.push(s);
      } else {
        out[k - 1] = node;
        scores[k - 1] = s;
      }
      // Up to its place; strictly better only, so an equal score stays after those given before it.
      // Swapped through locals: destructuring pairs cost a search's 2,283 centroids ~0.1 ms more (bench, stop 58).
      for (let i = out.length - 1; i > 0 && scores[i - 1]! < scores[i]!; i--) {
        const score = scores[i - 1]!;
        scores[i - 1] = scores[i]!;
        scores[i] = score;
        const above = out[i - 1]!;
        out[i - 1] = out[i]!;
        out[i] = above;
      }
    }
    return out;
  }

  private node(parent: number, sum: Float32Array): number {
    if (sum.length !== this.dim) throw new RangeError(`ListTree: ${sum.length} floats for ${this.dim} dimensions`);
    if (this.nodes === this.parent.length) this.grow();
    const node = this.nodes++;
    this.parent[node] = parent;
    this.child[node] = -1;
    this.listOf[node] = -1;
    this.sums.set(sum, node * this.dim);
    this.units.set(sum, node * this.dim);
    normalizeAt(this.units, node * this.dim, this.dim);
    return node;
  }

  private addTo(node: number, vector: Float32Array): void {
    const base = node * this.dim;
    for (let d = 0; d < this.dim; d++) {
      this.sums[base + d]! += vector[d]!;
      this.units[base + d] = this.sums[base + d]!;
    }
    normalizeAt(this.units, base, this.dim);
  }

  private grow(): void {
    const capacity = this.parent.length * 2;
    const floats = (old: Float32Array): Float32Array => {
      const next = new Float32Array(capacity * this.dim);
      next.set(old);
      return next;
    };
    const ints = (old: Int32Array): Int32Array => {
      const next = new Int32Array(capacity);
      next.set(old);
      return next;
    };
    this.sums = floats(this.sums);
    this.units = floats(this.units);
    this.parent = ints(this.parent);
    this.child = ints(this.child);
    this.listOf = ints(this.listOf);
  }

  private leaf(list: number): number {
    const node = this.leafOf[list];
    if (!Number.isInteger(list) || node === undefined) throw new RangeError(`no list ${list} (of ${this.leafOf.length})`);
    return node;
  }
}

/** Two halves of a list: each side's sum of vectors, and which side each vector went to. */
export interface Split {
  sums: [Float32Array, Float32Array];
  /** 0 or 1 a vector, in the order given. */
  side: Uint8Array;
}

/**
 * Splits `n` unit vectors (`vectors`, `dim` floats a row) in two by spherical 2-means: seeded with the vector
 * least like the others' mean and the vector least like that one (deterministic), then `rounds` rounds of
 * assigning each vector to the nearer centroid and re-centring. Vectors all alike (no second seed) are split in
 * halves by position, so a split always makes two non-empty sides of at least one vector when n >= 2.
 */
export function splitInTwo(vectors: Float32Array, dim: number, rounds = 6): Split {
  const n = vectors.length / dim;
  if (!Number.isInteger(n) || n < 2) throw new RangeError(`splitInTwo: ${vectors.length} floats are not two or more rows of ${dim}`);
  const mean = new Float32Array(dim);
  for (let r = 0; r < n; r++) for (let d = 0; d < dim; d++) mean[d]! += vectors[r * dim + d]!;
  let a = 0;
  let aScore = Infinity;
  for (let r = 0; r < n; r++) {
    const s = dot(vectors, r * dim, mean, 0, dim);
    if (s < aScore) [a, aScore] = [r, s];
  }
  let b = -1;
  let bScore = Infinity;
  for (let r = 0; r < n; r++) {
    const s = dot(vectors, r * dim, vectors, a * dim, dim);
    if (r !== a && s < bScore) [b, bScore] = [r, s];
  }
  const side = new Uint8Array(n);
  const centroids = [vectors.slice(a * dim, (a + 1) * dim), vectors.slice(b * dim, (b + 1) * dim)] as [Float32Array, Float32Array];
  const sums: [Float32Array, Float32Array] = [new Float32Array(dim), new Float32Array(dim)];
  const halves = (): Split => {
    side.fill(0);
    side.fill(1, n >> 1);
    return { sums: sidesSums(vectors, dim, side), side };
  };
  if (bScore > 1 - 1e-6) return halves();
  for (let round = 0; round < rounds; round++) {
    let moved = round === 0;
    for (let r = 0; r < n; r++) {
      const s = dot(vectors, r * dim, centroids[1], 0, dim) > dot(vectors, r * dim, centroids[0], 0, dim) ? 1 : 0;
      if (s !== side[r]) moved = true;
      side[r] = s;
    }
    [sums[0], sums[1]] = sidesSums(vectors, dim, side);
    if (!side.includes(0) || !side.includes(1)) return halves();
    if (!moved) break;
    for (const c of [0, 1] as const) {
      centroids[c].set(sums[c]);
      normalizeAt(centroids[c], 0, dim);
    }
  }
  return { sums, side };
}

function sidesSums(vectors: Float32Array, dim: number, side: Uint8Array): [Float32Array, Float32Array] {
  const sums: [Float32Array, Float32Array] = [new Float32Array(dim), new Float32Array(dim)];
  for (let r = 0; r < side.length; r++) {
    const sum = sums[side[r]!]!;
    for (let d = 0; d < dim; d++) sum[d]! += vectors[r * dim + d]!;
  }
  return sums;
}

/**
 * `vectors` (rows of `dim`, in the order they arrive) into lists grown as a store grows them: each joins the list
 * found down the tree, and a list past `maxSize` vectors is split in two. Answers the tree and each list's rows.
 */
export function growLists(
  vectors: Float32Array,
  dim: number,
  maxSize: number,
  beam = 4,
  /** Called after each vector with the lists it changed (its own, and a split's new one) and every list's rows. */
  observe?: (row: number, changed: readonly number[], members: readonly (readonly number[])[]) => void,
): { tree: ListTree; members: number[][] } {
  const tree = new ListTree(dim);
  const members: number[][] = [];
  const n = vectors.length / dim;
  for (let r = 0; r < n; r++) {
    const vector = vectors.subarray(r * dim, (r + 1) * dim);
    if (tree.count === 0) {
      members[tree.start(vector)] = [r];
      observe?.(r, [0], members);
      continue;
    }
    const list = tree.assign(vector, beam);
    tree.join(list, vector);
    members[list]!.push(r);
    if (members[list]!.length <= maxSize) {
      observe?.(r, [list], members);
      continue;
    }
    const rows = members[list]!;
    const data = new Float32Array(rows.length * dim);
    rows.forEach((row, i) => data.set(vectors.subarray(row * dim, (row + 1) * dim), i * dim));
    const split = splitInTwo(data, dim);
    const added = tree.split(list, split);
    members[list] = rows.filter((_, i) => split.side[i] === 0);
    members[added] = rows.filter((_, i) => split.side[i] === 1);
    observe?.(r, [list, added], members);
  }
  return { tree, members };
}
