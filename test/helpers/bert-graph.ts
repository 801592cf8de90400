/** The BERT-shaped graph generator lives in scripts/lib (benchmarks use it too); tests import it from here. */
export { bertGraph, MINILM_L6, SMALL_BERT, writeBertModelDir, type BertGraphConfig } from '../../scripts/lib/bert-graph.js';
