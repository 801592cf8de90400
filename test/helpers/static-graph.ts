/**
 * The ONNX graph the built-in embedder ran on onnxruntime until builder version 2 (scripts/build-static-embedder.ts):
 * kept here as the reference the hand-written kernel (src/pipeline/embedders/static-table.ts) is checked against.
 *
 * input_ids int64 [batch, seq] (0 = padding), attention_mask int64 [batch, seq] → Gather(int8 table [V, dim]) →
 * Cast float; Gather(row weight [V]) × mask → MatMul (a masked weighted sum per text) → ÷ max(‖·‖₂, 1e-12) →
 * sentence_embedding float [batch, dim].
 */
import { openSession } from '../../src/pipeline/embedders/onnx-session.js';
import type { StaticTable } from '../../src/pipeline/embedders/static-table.js';
import { DataType, GraphBuilder } from '../../scripts/lib/onnx-builder.js';

export function staticGraph(table: Int8Array, rowWeights: Float32Array, dimension: number): Uint8Array {
  const rows = rowWeights.length;
  const g = new GraphBuilder('static_sif');
  const ids = g.input('input_ids', DataType.INT64, ['batch', 'sequence']);
  const mask = g.input('attention_mask', DataType.INT64, ['batch', 'sequence']);
  const vectors = g.op('Cast', [g.op('Gather', [g.init('table_q', DataType.INT8, [rows, dimension], table), ids])], {
    to: { int: DataType.FLOAT },
  }); // [batch, seq, dim]
  const weights = g.op('Mul', [
    g.op('Gather', [g.initFloat('row_weight', [rows], rowWeights), ids]),
    g.op('Cast', [mask], { to: { int: DataType.FLOAT } }),
  ]); // [batch, seq]
  const summed = g.op('MatMul', [g.op('Unsqueeze', [weights, g.initInt64('axis1', [1], [1])]), vectors]); // [b, 1, dim]
  const flat = g.op('Squeeze', [summed, g.initInt64('axis1b', [1], [1])]); // [batch, dim]
  const l2 = g.op('ReduceL2', [flat], { axes: { ints: [1] }, keepdims: { int: 1 } });
  const safe = g.op('Max', [l2, g.initFloat('eps', [], [1e-12])]);
  g.op('Div', [flat, safe], {}, 'sentence_embedding');
  g.output('sentence_embedding', DataType.FLOAT, ['batch', dimension]);
  return g.toBytes({ producer: 'filesift-build-static-embedder' });
}

/** Embeds token-id rows with that graph on onnxruntime, one text per call, as builder version 1's embedder did. */
export async function graphEmbed(table: StaticTable, rows: readonly (readonly number[])[]): Promise<Float32Array[]> {
  const session = await openSession(staticGraph(table.vectors, table.weights, table.dimension));
  try {
    const out: Float32Array[] = [];
    for (const row of rows) {
      const seq = Math.max(1, row.length);
      const ids = new BigInt64Array(seq);
      const mask = new BigInt64Array(seq);
      row.forEach((id, c) => {
        ids[c] = BigInt(id);
        mask[c] = 1n;
      });
      out.push((await session.run({ input_ids: ids, attention_mask: mask }, [1, seq], 'sentence_embedding')).data.slice());
    }
    return out;
  } finally {
    await session.close();
  }
}
