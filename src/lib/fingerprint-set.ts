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
    if (this.#slots[FingerprintSet.#slotOf(this.#slots, fp)] === fp) return;
    if ((this.#size + 1) * 2 > this.#slots.length) this.#grow();
    this.#slots[FingerprintSet.#slotOf(this.#slots, fp)] = fp;
    this.#size++;
  }

  has(fingerprint: number): boolean {
    const fp = FingerprintSet.#nonZero(fingerprint);
    return this.#slots[FingerprintSet.#slotOf(this.#slots, fp)] === fp;
  }

  /** 0 marks an empty slot: the fingerprint 0 is stored as 1. */
  static #nonZero(fingerprint: number): number {
    return fingerprint >>> 0 || 1;
  }

  /**
   * The slot holding fp, or the empty slot where it would go. The probe starts at the top bits of a multiplicative
   * hash (Fibonacci hashing; the table's length is a power of 2) and, the table never full, ends at an empty slot.
   */
  static #slotOf(slots: Uint32Array, fp: number): number {
    const mask = slots.length - 1;
    let i = Math.imul(fp, 0x9e3779b1) >>> (Math.clz32(slots.length) + 1);
    while (slots[i] !== 0 && slots[i] !== fp) i = (i + 1) & mask;
    return i;
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Uint32Array(old.length * 2);
    for (const fp of old) if (fp !== 0) this.#slots[FingerprintSet.#slotOf(this.#slots, fp)] = fp;
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
