/**
 * Source code as blocks: comments become prose (they are what a person wrote *about* the code), the rest stays
 * code with identifiers split into words ("parseDocument", "file_path" → "parse Document", "file path") so that
 * keywords can be found in it. Comment syntax is chosen by file extension; a regex pass, not a parser, which is
 * enough to tell comments from code in all but contrived files.
 */
import type { Block } from './blocks.js';
import { stripInlineMarkup } from './blocks.js';

type CommentStyle = { line: string[]; block: Array<[string, string]>; docstrings?: boolean };

const C_LIKE: CommentStyle = { line: ['//'], block: [['/*', '*/']] };
const HASH: CommentStyle = { line: ['#'], block: [] };
const STYLES: Record<string, CommentStyle> = {
  ...Object.fromEntries(
    ['js', 'mjs', 'cjs', 'jsx', 'ts', 'mts', 'cts', 'tsx', 'java', 'kt', 'kts', 'scala', 'groovy', 'go', 'rs', 'c', 'h',
      'cc', 'cpp', 'cxx', 'hpp', 'hh', 'cs', 'swift', 'dart', 'php', 'm', 'mm', 'zig', 'proto', 'gradle', 'v', 'sol']
      .map((ext) => [ext, C_LIKE]),
  ),
  ...Object.fromEntries(['css', 'scss', 'less'].map((ext) => [ext, { line: ext === 'css' ? [] : ['//'], block: [['/*', '*/']] }])),
  ...Object.fromEntries(['sh', 'bash', 'zsh', 'fish', 'rb', 'pl', 'pm', 'r', 'yaml', 'yml', 'toml', 'cmake', 'mk', 'nix', 'tf', 'ps1', 'conf', 'ini', 'cfg', 'dockerfile', 'makefile'].map((ext) => [ext, HASH])),
  py: { line: ['#'], block: [], docstrings: true },
  pyi: { line: ['#'], block: [], docstrings: true },
  sql: { line: ['--'], block: [['/*', '*/']] },
  lua: { line: ['--'], block: [['--[[', ']]']] },
  hs: { line: ['--'], block: [['{-', '-}']] },
  elm: { line: ['--'], block: [['{-', '-}']] },
  ex: HASH,
  exs: HASH,
  jl: { line: ['#'], block: [['#=', '=#']] },
  clj: { line: [';'], block: [] },
  el: { line: [';'], block: [] },
  lisp: { line: [';'], block: [] },
  erl: { line: ['%'], block: [] },
  tex: { line: ['%'], block: [] },
  vue: { line: ['//'], block: [['/*', '*/'], ['<!--', '-->']] },
  svelte: { line: ['//'], block: [['/*', '*/'], ['<!--', '-->']] },
  json: { line: [], block: [] },
  jsonc: C_LIKE,
};

/** Extensions (and extension-less names) treated as source code or structured configuration. */
export function isCodeFile(extension: string, filename: string): boolean {
  return extension in STYLES || (extension === '' && filename.toLowerCase() in STYLES);
}

export interface CodeBlocks {
  blocks: Block[];
  /** Index in `blocks` of the comment at the head of the file (module doc), when there is one. */
  leadingComment?: number;
}

/** Splits a source file into comment prose and identifier-split code. */
export function codeBlocks(text: string, extension: string, filename: string): CodeBlocks {
  const style = STYLES[extension] ?? STYLES[filename.toLowerCase()] ?? C_LIKE;
  const blocks: Block[] = [];
  let leadingComment: number | undefined;
  let sawCode = false;
  let code: string[] = [];
  let comment: string[] = [];

  const flushCode = (): void => {
    const joined = code.join('\n');
    if (joined.trim() !== '') blocks.push({ kind: 'code', text: splitIdentifiers(joined) });
    if (code.some((line) => !isPreamble(line))) sawCode = true;
    code = [];
  };
  const flushComment = (): void => {
    const prose = cleanComment(comment);
    comment = [];
    if (prose === '' || /\b(copyright|licen[cs]e[ds]?|spdx-license-identifier|all rights reserved)\b/i.test(prose)) return;
    if (!sawCode && leadingComment === undefined) leadingComment = blocks.length;
    blocks.push({ kind: 'paragraph', text: prose });
  };

  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    const trimmed = line.trim();
    if (i === 0 && trimmed.startsWith('#!')) continue;
    const opener = style.block.find(([open]) => trimmed.startsWith(open));
    const docstring = style.docstrings ? /^[rRuUbB]?("""|''')/.exec(trimmed) : null;
    const close = opener?.[1] ?? docstring?.[1];
    if (close !== undefined) {
      flushCode();
      const openLength = opener?.[0].length ?? (docstring?.[0].length ?? 0);
      let body = trimmed.slice(openLength);
      const collected: string[] = [];
      while (!body.includes(close) && i + 1 < lines.length) {
        collected.push(body);
        i += 1;
        body = lines[i] ?? '';
      }
      collected.push(body.slice(0, Math.max(0, body.indexOf(close))));
      comment.push(...collected);
      flushComment();
      continue;
    }
    const marker = style.line.find((token) => trimmed.startsWith(token));
    if (marker !== undefined) {
      flushCode();
      comment.push(trimmed.slice(marker.length).replace(new RegExp(`^[${escapeForClass(marker)}!/]*`), ''));
      continue;
    }
    flushComment();
    code.push(line);
  }
  flushComment();
  flushCode();
  return leadingComment === undefined ? { blocks } : { blocks, leadingComment };
}

/** Imports, package lines and module pragmas do not end a file's leading comment. */
export function isPreamble(line: string): boolean {
  const trimmed = line.trim();
  return (
    trimmed === '' ||
    /^(import|from|package|using|use|require|include|#include|'use strict'|"use strict"|module|namespace|@file|<\?php)\b/.test(trimmed) ||
    /^(const|let|var)\s+\w+\s*=\s*require\(/.test(trimmed)
  );
}

/** Comment lines → prose: decoration, JSDoc/Javadoc tags and commented-out code are dropped. */
function cleanComment(lines: string[]): string {
  const kept = lines
    .map((line) => line.replace(/^\s*\*+\s?/, '').replace(/\s*\*+\s*$/, '').trim())
    .filter((line) => line !== '' && !/^[-=*#~_+/]{3,}$/.test(line) && !/^@\w+/.test(line) && !isDirective(line) && !looksLikeCode(line));
  return stripInlineMarkup(kept.join(' '));
}

/** Tool pragmas ("eslint-disable", "-*- coding: utf-8 -*-", "noqa") are not prose. */
function isDirective(line: string): boolean {
  return /^(eslint|jshint|global\s|@ts-|prettier-ignore|istanbul|c8\s|noqa|type:\s*ignore|pylint:|nolint|#?region\b|#?endregion\b|-\*-|vim?:)/i.test(line);
}

function looksLikeCode(line: string): boolean {
  return /[;{}]\s*$/.test(line) || /^\s*(import|return|if|for|while|const|let|var|def|function)\b.*[(=]/.test(line);
}

function escapeForClass(marker: string): string {
  return marker.replace(/[\\\]^-]/g, '\\$&');
}

/** "parseHTTPRequest" → "parse HTTP Request", "file_path" → "file path": identifiers as words. */
export function splitIdentifiers(code: string): string {
  return code
    .replace(/([\p{Ll}\d])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/_+/g, ' ');
}
