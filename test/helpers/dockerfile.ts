/**
 * The Dockerfile's runtime stage read as the tests need it (Docker does not run on these machines): its ENV
 * assignments and its exec-form CMD, the service's command in the image.
 */

/** The runtime stage: everything from the last FROM. */
export function runtimeStage(dockerfile: string): string {
  return dockerfile.slice(dockerfile.lastIndexOf('\nFROM ') + 1);
}

/** The runtime stage's CMD in exec form (`CMD ["node", ...]`), or null when it has none at the start of a line. */
export function imageCommand(dockerfile: string): string[] | null {
  return JSON.parse(/^CMD (\[.*\])$/m.exec(runtimeStage(dockerfile))?.[1] ?? 'null') as string[] | null;
}

/** The runtime stage's ENV assignments (NAME=value), continued lines joined. */
export function imageEnv(dockerfile: string): string[] {
  return [...runtimeStage(dockerfile).matchAll(/^ENV ((?:[^\n]*\\\n)*[^\n]*)$/gm)].flatMap((m) => m[1]!.replace(/\\\n/g, ' ').trim().split(/\s+/));
}
