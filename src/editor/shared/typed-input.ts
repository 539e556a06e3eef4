/** The TypedInput types a field that may take its value from elsewhere offers after its own. */
export const FROM_MSG_AND_CONTEXT = ['msg', 'flow', 'global', 'env'];

/** The literal text of a string-typed TypedInput, or "" when it takes its value from msg/context. */
export function literalValue(inputId: string): string {
  const input = $(`#${inputId}`);
  return input.typedInput('type') === 'str' ? String(input.typedInput('value') || '').trim() : '';
}
