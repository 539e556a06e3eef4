// The statistics the bench's reports share (run.mjs, ab-nodes.mjs).

/** The middle value of `xs` (the mean of the two middle ones for an even count); NaN for none. */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = (s.length - 1) / 2;
  return (s[Math.floor(m)] + s[Math.ceil(m)]) / 2;
};

/** The value below which a share `p` of `xs` lies (linear between neighbours). */
export const quantile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * p;
  return s[Math.floor(at)] + (s[Math.ceil(at)] - s[Math.floor(at)]) * (at - Math.floor(at));
};
