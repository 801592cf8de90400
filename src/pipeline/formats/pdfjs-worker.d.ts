// pdfjs-dist ships no types for its worker bundle; we only hand the module object back to pdfjs.
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  export const WorkerMessageHandler: unknown;
}
