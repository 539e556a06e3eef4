import { catalogue } from './catalogue';
import type { DeclaredField } from './declarations';

/** The icon of a row when the template names none: the rows every dialog has look alike. */
const ROW_ICONS: Record<string, string> = {
  server: 'server',
  servers: 'random',
  name: 'tag',
  outputProperty: 'sign-out',
  operation: 'wrench',
  project: 'folder-o',
};

/** The markup inside one dialog row (see buildForm), from what the declaration says the field is. */
export function rowMarkup(
  type: string,
  row: JQuery,
  field: string,
  declared: DeclaredField | undefined,
  credential: { type: string } | undefined,
  prefix: string,
): string {
  const entry: DeclaredField = declared ?? { value: undefined };
  const t = catalogue(type);
  const id = prefix + field;
  const attr = (name: string): string | undefined => row.attr(name);
  const icon = attr('data-icon') ?? ROW_ICONS[field] ?? 'pencil';
  const label =
    `<label for="${id}"><i class="fa fa-${icon}"></i> <span ` + `data-i18n="${type}.label.${field}"></span></label>`;
  /** The placeholder attribute of a field, where the catalogue has one. */
  const placeholderOf = (f: string): string => {
    const key = `${type}.placeholder.${f}`;
    return t(`placeholder.${f}`) !== key ? ` data-i18n="[placeholder]${key}"` : '';
  };
  const placeholder = placeholderOf(field);
  const width = ` style="width: ${attr('data-width') ?? '70%'};"`;
  const unitKey = attr('data-unit');
  const unit = unitKey ? ` <span data-i18n="${type}.label.${unitKey}"></span>` : '';
  const also = attr('data-also');
  if (also) {
    // A second, short field in the same row (host and port, limit and threshold).
    return (
      `${label}<input type="text" id="${id}" style="width: ${attr('data-width') ?? '80px'};"${placeholder}>` +
      `<label for="${prefix}${also}" style="margin-left: 10px; width: auto;" ` +
      `data-i18n="${type}.label.${also}"></label>` +
      `<input type="text" id="${prefix}${also}" style="width: 80px;"${placeholderOf(also)}>`
    );
  }
  if (credential) {
    return (
      `${label}<input type="${credential.type === 'password' ? 'password' : 'text'}" id="${id}"${width} ` +
      `autocomplete="off"${placeholder}>`
    );
  }
  if (entry.type) return `${label}<input type="text" id="${id}">`;
  // Config nodes by id, several (its options are the flows' config nodes, filled when the dialog opens).
  if (entry.choices) return `${label}<select id="${id}" multiple size="3"${width}></select>`;
  if (typeof entry.value === 'boolean') {
    return (
      `<label>&nbsp;</label><input type="checkbox" id="${id}" style="display: inline-block; width: auto; ` +
      `vertical-align: top;">` +
      `<label for="${id}" style="width: auto;" data-i18n="${type}.label.${field}"></label>`
    );
  }
  const check = entry.check ?? {};
  if (check.oneOf) {
    const labels = attr('data-labels') ?? (field === 'operation' ? 'op' : field);
    const options = check.oneOf.map(
      (v) =>
        `<option value="${v}" data-i18n="${type}.label.${labels}${v.charAt(0).toUpperCase()}${v.slice(1)}"></option>`,
    );
    return `${label}<select id="${id}"${width}>${options.join('')}</select>`;
  }
  if (check.typedInput)
    return `${label}<input type="text" id="${id}"${width}${placeholder}><input type="hidden" id="${id}Type">`;
  if (check.number)
    return (
      `${label}<input type="text" id="${id}" style="width: ` +
      `${attr('data-width') ?? '100px'};"${placeholder}>${unit}`
    );
  const list = attr('data-list');
  if (list) {
    // Suggestions the browser offers under a free text field (engines, providers, schedules).
    const options = list
      .split(',')
      .map((v) => `<option value="${v.trim()}"></option>`)
      .join('');
    return (
      `${label}<input type="text" id="${id}" list="${id}-list"${width} ` +
      `autocomplete="off"${placeholder}><datalist id="${id}-list">${options}</datalist>`
    );
  }
  return `${label}<input type="text" id="${id}"${width} autocomplete="off"${placeholder}>`;
}
