/**
 * Writes ZIP archives for tests and the torture bench, byte by byte: hostile and unusual archives (entries with
 * data descriptors, as streaming writers make them) need control over every header, which zip libraries do not
 * give. Deflate or stored, no ZIP64.
 */
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntrySpec {
  name: string;
  data: Buffer | string;
  /** Deflate (default true). */
  deflate?: boolean;
  /** Flag the entry as encrypted (general-purpose bit 0); its data is written as given. */
  encrypted?: boolean;
}

export interface ZipWriteOptions {
  /**
   * Write each entry as a streaming writer does: general-purpose bit 3 set, CRC and sizes zero in the local
   * header, and a data descriptor (with its optional signature) after the data.
   */
  dataDescriptors?: boolean;
}

export function writeZip(entries: readonly ZipEntrySpec[], options: ZipWriteOptions = {}): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const raw = Buffer.isBuffer(entry.data) ? entry.data : Buffer.from(entry.data, 'utf8');
    const deflate = entry.deflate ?? true;
    const body = deflate ? deflateRawSync(raw) : raw;
    const crc = crc32(raw);
    // An encrypted entry's data starts with a 12-byte encryption header the uncompressed size does not count.
    const size = entry.encrypted ? raw.length - 12 : raw.length;
    const flags = 0x800 | (options.dataDescriptors ? 0x8 : 0) | (entry.encrypted ? 0x1 : 0);
    const method = deflate ? 8 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(0, 10); // time, date
    local.writeUInt32LE(options.dataDescriptors ? 0 : crc, 14);
    local.writeUInt32LE(options.dataDescriptors ? 0 : body.length, 18);
    local.writeUInt32LE(options.dataDescriptors ? 0 : size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const parts = [local, name, body];
    if (options.dataDescriptors) {
      const descriptor = Buffer.alloc(16);
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeUInt32LE(body.length, 8);
      descriptor.writeUInt32LE(size, 12);
      parts.push(descriptor);
    }
    const record = Buffer.concat(parts);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(flags, 8);
    header.writeUInt16LE(method, 10);
    header.writeUInt32LE(0, 12);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(body.length, 20);
    header.writeUInt32LE(size, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(offset, 42);
    central.push(header, name);
    locals.push(record);
    offset += record.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
