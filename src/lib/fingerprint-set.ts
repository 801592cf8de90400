/**
 * A set of 32-bit fingerprints: open addressing with linear probing over one Uint32Array, doubled when half full.
 * 4–8 bytes a member where a JavaScript Set of numbers takes ~30, so a million members cost 4–8 MB. A member is a
 * fingerprint, not the value it came from: `has` may answer true for a value never added (two values sharing a
 * fingerprint), never false for one that was. Hand-written: a few lines, and no package offers just this.
 */
export class FingerprintSet {
  #slots = new Uint32Array(1024);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  add(fingerprint: number): void {
    const fp = FingerprintSet.#nonZero(fingerprint);
    if (FingerprintSet.#find(this.#slots, fp) >= 0) return;
    if ((this.#size + 1) * 2 > this.#slots.length) this.#grow();
    FingerprintSet.#insert(this.#slots, fp);
    this.#size++;
  }

  has(fingerprint: number): boolean {
    return FingerprintSet.#find(this.#slots, FingerprintSet.#nonZero(fingerprint)) >= 0;
  }

  /** 0 marks an empty slot: the fingerprint 0 is stored as 1. */
  static #nonZero(fingerprint: number): number {
    return fingerprint >>> 0 || 1;
  }

  /** The slot holding fp, or -1. The table is never full, so the probe ends at an empty slot. */
  static #find(slots: Uint32Array, fp: number): number {
    const mask = slots.length - 1;
    for (let i = FingerprintSet.#home(slots, fp); ; i = (i + 1) & mask) {
      const slot = slots[i]!;
      if (slot === fp) return i;
      if (slot === 0) return -1;
    }
  }

  /** The first slot to probe: the top bits of a multiplicative hash (Fibonacci hashing), the table's length a power of 2. */
  static #home(slots: Uint32Array, fp: number): number {
    return Math.imul(fp, 0x9e3779b1) >>> (Math.clz32(slots.length) + 1);
  }

  static #insert(slots: Uint32Array, fp: number): void {
    const mask = slots.length - 1;
    let i = FingerprintSet.#home(slots, fp);
    while (slots[i] !== 0) i = (i + 1) & mask;
    slots[i] = fp;
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Uint32Array(old.length * 2);
    for (const fp of old) if (fp !== 0) FingerprintSet.#insert(this.#slots, fp);
  }
}

/** FNV-1a over a string's UTF-16 code units: a 32-bit fingerprint. */
export function fingerprint(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
