/**
 * MindsDB release numbers ("26.2.0"), compared as numbers. A version that does not read as
 * major.minor.patch is never taken to be at least anything: what a server has is not guessed.
 */
export function versionAtLeast(version: string | undefined, min: string): boolean {
  const a = parts(version ?? '');
  const b = parts(min);
  if (!a || !b) return false;
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return true;
}

function parts(v: string): [number, number, number] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}
