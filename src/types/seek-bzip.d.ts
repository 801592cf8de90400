// seek-bzip ships plain CommonJS without types: the Bunzip decoder, used here with an output that takes bytes.
declare module 'seek-bzip' {
  const Bunzip: {
    /** Decodes `input` whole into `output` (one writeByte call per byte); every stream in turn with `multistream`. */
    decode(input: Buffer, output: { writeByte(byte: number): void }, multistream?: boolean): void;
  };
  export default Bunzip;
}
