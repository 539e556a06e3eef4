/** A node type's catalogue texts (validators run without a node `this`, so by type). */
export function catalogue(type: string): CatalogueFn {
  return (key, opts) => {
    const def = RED.nodes.getType(type);
    return def?._ ? def._(`${type}.${key}`, opts) : key;
  };
}

/** A function returning the catalogue text `key` of `type` (for paletteLabel, outputLabels …). */
export function i18n(type: string, key: string): () => string {
  const t = catalogue(type);
  return () => t(key);
}

/** The label style of a node with a name of its own, as Node-RED's core nodes show it. */
export function labelStyle(this: EditorNode): string {
  return this.name ? 'node_label_italic' : '';
}
