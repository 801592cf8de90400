import { expect } from 'chai';
import { findSecret } from '../../../src/pipeline/stages/secrets.js';

// Built at run time so no scanner takes this file for a leak.
const gh = `ghp_${'A1b2C3d4E5'.repeat(3)}abcdef`;
const aws = `AKIA${'Q7XZ'.repeat(4)}`;

describe('findSecret', () => {
  it('finds private key blocks and well-known token shapes anywhere in a text', () => {
    const cases: [string, RegExp][] = [
      ['notes\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n', /private key block/],
      ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl', /private key block/],
      ['-----BEGIN ENCRYPTED PRIVATE KEY-----', /private key block/],
      ['PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none', /PuTTY/],
      [`export GITHUB_TOKEN=${gh}`, /GitHub/],
      [`key id ${aws} in the config`, /AWS access key/],
      [`token: glpat-${'x'.repeat(20)}`, /GitLab/],
    ];
    for (const [text, kind] of cases) expect(findSecret(text)?.kind, text).to.match(kind);
  });

  it('lets ordinary prose, public keys, certificates and documentation placeholders through', () => {
    for (const text of [
      'The private key must never leave the server; rotate it yearly.',
      '-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----',
      '-----BEGIN CERTIFICATE-----\nMIID\n-----END CERTIFICATE-----',
      'aws_access_key_id = AKIAIOSFODNN7EXAMPLE',
      'ghp_short is not a token',
    ]) {
      expect(findSecret(text), text).to.equal(null);
    }
  });

  it('does not let a documentation placeholder hide a real key further on', () => {
    expect(findSecret(`example: AKIAIOSFODNN7EXAMPLE\nreal: ${aws}`)?.kind).to.match(/AWS access key/);
  });
});
