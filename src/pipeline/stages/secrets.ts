/**
 * The content check of the parse stage: a file whose text holds a private key or a credential of a well-known
 * shape is kept out of the index whatever its name (a PEM key saved as server_key.txt, a token pasted into
 * notes.md). Name patterns (filters/defaults.ts) catch the usual files without reading them; this catches the
 * rest. Indexed text is summarised, embedded and shown in snippets (possibly sent to a remote summariser), so
 * leaving the file out is the only safe answer; it is recorded as excluded with the reason.
 *
 * Shapes are those with a fixed, distinctive prefix (as the secret scanners of GitHub and GitLab match them), so
 * ordinary prose never trips them; each is one linear-time regular expression over the text.
 */

export interface SecretFinding {
  /** What was found, for the reason: 'a private key block (RSA)', 'a GitHub token'. */
  kind: string;
}

interface Shape {
  kind: string;
  pattern: RegExp;
  /** A documentation placeholder of this shape (e.g. AWS's AKIAIOSFODNN7EXAMPLE) is not a secret. */
  placeholder?: RegExp;
}

const SHAPES: readonly Shape[] = [
  { kind: 'a private key block', pattern: /-----BEGIN (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----/ },
  { kind: 'a PuTTY private key', pattern: /^PuTTY-User-Key-File-\d+: /m },
  { kind: 'an AWS access key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/, placeholder: /EXAMPLE\b/ },
  { kind: 'an AWS secret access key', pattern: /\baws_secret_access_key\s*[=:]\s*["']?[A-Za-z0-9/+=]{40}\b/i, placeholder: /EXAMPLEKEY/ },
  { kind: 'a GitHub token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{82})\b/ },
  { kind: 'a GitLab token', pattern: /\bglpat-[A-Za-z0-9_-]{20}\b/ },
  { kind: 'a Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}|\bhttps:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]{16,}/ },
  { kind: 'a Stripe secret key', pattern: /\b[rs]k_live_[A-Za-z0-9]{24,}\b/ },
  { kind: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/ },
  { kind: 'an OpenAI API key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|\bsk-proj-[A-Za-z0-9_-]{48,}/ },
  { kind: 'an Anthropic API key', pattern: /\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{80,}/ },
  { kind: 'a Hugging Face token', pattern: /\bhf_[A-Za-z0-9]{34}\b/ },
  { kind: 'an npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { kind: 'a PyPI token', pattern: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/ },
];

/** The first secret the text holds, or null. Linear in the text (each shape is tried once over it). */
export function findSecret(text: string): SecretFinding | null {
  for (const shape of SHAPES) {
    const match = shape.pattern.exec(text);
    if (!match) continue;
    if (shape.placeholder && shape.placeholder.test(match[0])) {
      // One documentation example must not hide a real key further on: look at every match of this shape.
      const all = new RegExp(shape.pattern.source, `${shape.pattern.flags}g`);
      for (const m of text.matchAll(all)) if (!shape.placeholder.test(m[0])) return { kind: shape.kind };
      continue;
    }
    return { kind: shape.kind };
  }
  return null;
}

/** The reason recorded for an excluded file. */
export function secretReason(finding: SecretFinding): string {
  return `holds ${finding.kind}: files with keys or tokens are kept out of the index (their text would be searchable, summarised and shown in snippets)`;
}
