/**
 * A minimal ONNX graph writer on top of `onnx-proto` (the ONNX protobuf schema compiled for protobufjs).
 * Used offline only: by the built-in embedder's build step and by tests/benchmarks that generate graphs.
 * It knows just enough ONNX to describe feed-forward graphs: typed inputs/outputs, initializers stored as
 * little-endian raw bytes, and nodes with int/float/ints/tensor attributes.
 */
import onnxProto from 'onnx-proto';
import type { onnx as OnnxTypes } from 'onnx-proto';

const { onnx } = onnxProto;

export const DataType = {
  FLOAT: 1,
  UINT8: 2,
  INT8: 3,
  INT32: 6,
  INT64: 7,
} as const;
export type ElemType = (typeof DataType)[keyof typeof DataType];

/** A dimension is a fixed size or a symbolic name ('batch', 'sequence'). */
export type Dim = number | string;

export type AttrValue =
  | { int: number }
  | { float: number }
  | { ints: number[] }
  | { tensor: OnnxTypes.ITensorProto };

/** Opset 17 is the first with LayerNormalization; onnxruntime-node 1.30 runs it (and later ones). */
export const DEFAULT_OPSET = 17;

if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) {
  // ONNX raw_data is little-endian; we write typed-array bytes as they are in memory.
  throw new Error('onnx-builder assumes a little-endian machine');
}

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

export function tensorProto(
  name: string,
  type: ElemType,
  dims: number[],
  data: Float32Array | Int8Array | Uint8Array | Int32Array | BigInt64Array,
): OnnxTypes.ITensorProto {
  const expected = dims.reduce((a, b) => a * b, 1);
  if (data.length !== expected) {
    throw new Error(`tensor ${name}: ${data.length} values for dims [${dims.join(',')}] (${expected})`);
  }
  return { name, dataType: type, dims, rawData: bytesOf(data) };
}

function valueInfo(name: string, type: ElemType, dims: Dim[]): OnnxTypes.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: type,
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

function attribute(name: string, value: AttrValue): OnnxTypes.IAttributeProto {
  const T = onnx.AttributeProto.AttributeType;
  if ('int' in value) return { name, type: T.INT, i: value.int };
  if ('float' in value) return { name, type: T.FLOAT, f: value.float };
  if ('ints' in value) return { name, type: T.INTS, ints: value.ints };
  return { name, type: T.TENSOR, t: value.tensor };
}

export class GraphBuilder {
  private readonly nodes: OnnxTypes.INodeProto[] = [];
  private readonly initializers: OnnxTypes.ITensorProto[] = [];
  private readonly inputs: OnnxTypes.IValueInfoProto[] = [];
  private readonly outputs: OnnxTypes.IValueInfoProto[] = [];
  private readonly names = new Set<string>();
  private counter = 0;

  constructor(private readonly graphName: string) {}

  /** A fresh value name with a readable prefix. */
  fresh(prefix: string): string {
    let name: string;
    do name = `${prefix}_${this.counter++}`;
    while (this.names.has(name));
    this.names.add(name);
    return name;
  }

  private claim(name: string): string {
    if (this.names.has(name)) throw new Error(`duplicate value name ${name}`);
    this.names.add(name);
    return name;
  }

  input(name: string, type: ElemType, dims: Dim[]): string {
    this.inputs.push(valueInfo(this.claim(name), type, dims));
    return name;
  }

  output(name: string, type: ElemType, dims: Dim[]): void {
    if (!this.names.has(name)) throw new Error(`output ${name} is not produced by any node`);
    this.outputs.push(valueInfo(name, type, dims));
  }

  init(
    name: string,
    type: ElemType,
    dims: number[],
    data: Float32Array | Int8Array | Uint8Array | Int32Array | BigInt64Array,
  ): string {
    this.initializers.push(tensorProto(this.claim(name), type, dims, data));
    return name;
  }

  initFloat(name: string, dims: number[], data: Float32Array | number[]): string {
    return this.init(name, DataType.FLOAT, dims, data instanceof Float32Array ? data : Float32Array.from(data));
  }

  initInt64(name: string, dims: number[], values: number[]): string {
    return this.init(name, DataType.INT64, dims, BigInt64Array.from(values.map((v) => BigInt(v))));
  }

  /** Adds a node; returns its output names (fresh ones unless given). */
  node(
    opType: string,
    inputs: string[],
    outputs: number | string[] = 1,
    attrs: Record<string, AttrValue> = {},
  ): string[] {
    const outNames =
      typeof outputs === 'number'
        ? Array.from({ length: outputs }, () => this.fresh(opType.toLowerCase()))
        : outputs.map((o) => this.claim(o));
    this.nodes.push({
      opType,
      name: this.fresh(`n_${opType}`),
      input: inputs,
      output: outNames,
      attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)),
    });
    return outNames;
  }

  /** Adds a single-output node and returns the output name. */
  op(opType: string, inputs: string[], attrs: Record<string, AttrValue> = {}, outName?: string): string {
    const [out] = this.node(opType, inputs, outName === undefined ? 1 : [outName], attrs);
    return out as string;
  }

  /** Serialises the graph to ONNX model bytes. */
  toBytes(options: { opset?: number; producer?: string; docString?: string } = {}): Uint8Array {
    const model = onnx.ModelProto.create({
      irVersion: 8,
      producerName: options.producer ?? 'filesift',
      docString: options.docString ?? '',
      opsetImport: [{ domain: '', version: options.opset ?? DEFAULT_OPSET }],
      graph: {
        name: this.graphName,
        node: this.nodes,
        initializer: this.initializers,
        input: this.inputs,
        output: this.outputs,
      },
    });
    return onnx.ModelProto.encode(model).finish();
  }
}
