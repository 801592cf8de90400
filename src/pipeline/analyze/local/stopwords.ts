/**
 * Words that are never keywords, beyond wink's English stop-word list: generic words of documents and
 * science writing that general-English rarity does not catch (they are rare in news yet say nothing about a
 * file), and the reserved words and stock names of programming languages.
 */

export const GENERIC_WORDS = new Set([
  // document furniture
  'abstract', 'introduction', 'conclusion', 'conclusions', 'summary', 'chapter', 'section', 'page', 'pages',
  'figure', 'fig', 'table', 'appendix', 'et', 'al', 'etc', 'eg', 'ie', 'vs', 'via', 'per', 'whereas', 'thereby',
  'herein', 'therein', 'wherein', 'also', 'however', 'thus', 'hence', 'furthermore', 'moreover', 'yet', 'still',
  'http', 'https', 'www', 'com', 'org', 'html', 'pdf', 'doc', 'docx', 'txt',
  // reporting verbs and vague nouns/adjectives that wink may tag as nouns
  'use', 'used', 'using', 'usage', 'show', 'shown', 'shows', 'showed', 'find', 'found', 'finding', 'findings',
  'result', 'results', 'resulted', 'study', 'studies', 'studied', 'method', 'methods', 'approach', 'approaches',
  'paper', 'article', 'report', 'reports', 'reported', 'data', 'analysis', 'analyses', 'effect', 'effects',
  'role', 'roles', 'case', 'cases', 'type', 'types', 'level', 'levels', 'number', 'numbers', 'way', 'ways',
  'thing', 'things', 'part', 'parts', 'kind', 'lot', 'lots', 'total', 'various', 'several', 'many', 'much',
  'new', 'novel', 'important', 'significant', 'significantly', 'different', 'similar', 'specific', 'present',
  'possible', 'potential', 'associated', 'related', 'due', 'well', 'high', 'higher', 'low', 'lower', 'large',
  'small', 'first', 'second', 'third', 'one', 'two', 'three', 'four', 'five', 'year', 'years', 'time', 'times',
  'day', 'days', 'increase', 'increased', 'decrease', 'decreased', 'change', 'changes', 'suggest', 'suggests',
  'including', 'include', 'includes', 'based', 'following', 'respectively', 'overall', 'whether', 'within',
  'among', 'across', 'without', 'may', 'might', 'can', 'could', 'would', 'should', 'must', 'will', 'shall',
  'like', 'just', 'get', 'got', 'make', 'made', 'see', 'seen', 'need', 'needs', 'want', 'know', 'think',
  'good', 'better', 'best', 'great', 'little', 'big', 'long', 'short', 'full', 'other', 'others', 'another',
  'example', 'examples', 'note', 'notes', 'order', 'group', 'groups', 'value', 'values', 'set', 'sets',
  'self', 'vitro', 'vivo', 'situ', 'hello', 'hi', 'thanks', 'thank', 'please', 'dear', 'regards', 'yes', 'ok', 'okay', 'e', 'eg',
]);

export const CODE_WORDS = new Set([
  'abstract', 'and', 'any', 'arg', 'args', 'argv', 'array', 'as', 'assert', 'async', 'auto', 'await', 'bool',
  'boolean', 'break', 'byte', 'case', 'catch', 'char', 'class', 'const', 'constructor', 'continue', 'def',
  'default', 'del', 'delete', 'do', 'double', 'elif', 'else', 'end', 'enum', 'err', 'error', 'except', 'export',
  'exports', 'extends', 'extern', 'false', 'final', 'finally', 'float', 'fn', 'for', 'foreach', 'from', 'func',
  'function', 'get', 'global', 'goto', 'if', 'impl', 'implements', 'import', 'in', 'include', 'init', 'instanceof',
  'int', 'interface', 'is', 'lambda', 'len', 'let', 'long', 'main', 'map', 'match', 'mod', 'module', 'mut',
  'namespace', 'new', 'nil', 'none', 'not', 'null', 'number', 'obj', 'object', 'of', 'or', 'override', 'package',
  'pass', 'println', 'printf', 'print', 'private', 'protected', 'pub', 'public', 'raise', 'readonly', 'ref',
  'require', 'res', 'req', 'return', 'self', 'set', 'short', 'signed', 'sizeof', 'static', 'str', 'string',
  'struct', 'super', 'switch', 'this', 'throw', 'throws', 'todo', 'fixme', 'true', 'try', 'type', 'typedef',
  'typeof', 'undefined', 'union', 'unsigned', 'use', 'using', 'val', 'value', 'var', 'void', 'volatile', 'where',
  'while', 'with', 'yield', 'console', 'log', 'tmp', 'temp', 'foo', 'bar', 'baz', 'param', 'params', 'returns',
  'src', 'dst', 'idx', 'ptr', 'buf', 'ctx', 'cb', 'fn', 'opts', 'options', 'config', 'util', 'utils', 'std',
  'http', 'https', 'www', 'com', 'org', 'js', 'ts', 'py', 'json', 'xml', 'api', 'lib', 'test', 'tests', 'spec',
  'expect', 'describe', 'it', 'should', 'equal', 'to', 'be', 'data', 'result', 'list', 'item', 'items', 'key',
  'keys', 'name', 'names', 'id', 'ids', 'size', 'count', 'index', 'length', 'input', 'output', 'file', 'path',
]);
