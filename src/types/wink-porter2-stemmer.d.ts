// wink-porter2-stemmer ships plain CommonJS without types: module.exports is the stem function.
declare module 'wink-porter2-stemmer' {
  /** Porter2 (Snowball English) stem of a word; lower-cases its input. */
  export default function stem(word: string): string;
}
