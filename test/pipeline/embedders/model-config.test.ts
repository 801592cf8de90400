import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KNOWN_MODELS } from '../../../src/pipeline/embedders/known-models.js';
import { missingTransformerFiles, readModelConfig } from '../../../src/pipeline/embedders/model-config.js';

describe('readModelConfig', () => {
  let tmp: string;
  let n = 0;
  const folder = (files: Record<string, unknown>, name = `m${n++}`): string => {
    const dir = path.join(tmp, name);
    mkdirSync(dir, { recursive: true });
    for (const [file, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), typeof content === 'string' ? content : JSON.stringify(content));
    }
    return dir;
  };

  before(() => (tmp = mkdtempSync(path.join(os.tmpdir(), 'filesift-model-config-'))));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('takes a known model\'s pooling, query instruction and window from its name in filesift-model.json', () => {
    const dir = folder({ 'filesift-model.json': { model: 'bge-small-en-v1.5', variant: 'int8' }, 'model.onnx': '', 'tokenizer.json': '{}' });
    const config = readModelConfig(dir);
    expect(config).to.include({ name: 'bge-small-en-v1.5', variant: 'int8', pooling: 'cls', maxTokens: 512, hiddenSize: 384, tokenizerFile: 'tokenizer.json' });
    expect(config.queryPrefix).to.equal(KNOWN_MODELS['bge-small-en-v1.5'].queryPrefix);
    const minilm = readModelConfig(folder({ 'config.json': { _name_or_path: 'sentence-transformers/all-MiniLM-L6-v2', hidden_size: 384 }, 'vocab.txt': '' }));
    expect(minilm).to.include({ name: 'all-MiniLM-L6-v2', pooling: 'mean', queryPrefix: '', maxTokens: 256, tokenizerFile: 'vocab.txt' });
  });

  it('lets a sentence-transformers folder say its own pooling, window and query prompt', () => {
    const dir = folder({
      'config.json': { _name_or_path: 'acme/retriever', hidden_size: 768, max_position_embeddings: 512 },
      '1_Pooling/config.json': { pooling_mode_cls_token: true, pooling_mode_mean_tokens: false },
      'sentence_bert_config.json': { max_seq_length: 384 },
      'config_sentence_transformers.json': { prompts: { query: 'query: ', document: 'passage: ' } },
    });
    expect(readModelConfig(dir)).to.include({ name: 'retriever', pooling: 'cls', queryPrefix: 'query: ', maxTokens: 384, hiddenSize: 768, maxPositions: 512 });
  });

  it('defaults an unknown model to mean pooling without instruction, named after its folder', () => {
    const config = readModelConfig(folder({}, 'my-model'));
    expect(config).to.include({ name: 'my-model', pooling: 'mean', queryPrefix: '' });
    expect(config).to.not.have.property('maxTokens');
  });

  it('names what a folder lacks to be a model', () => {
    expect(missingTransformerFiles(folder({}))).to.deep.equal(['model.onnx', 'tokenizer.json (or vocab.txt)']);
    expect(missingTransformerFiles(folder({ 'model.onnx': '', 'vocab.txt': '' }))).to.deep.equal([]);
    expect(missingTransformerFiles(folder({ 'tokenizer.json': '{}' }))).to.deep.equal(['model.onnx']);
  });
});
