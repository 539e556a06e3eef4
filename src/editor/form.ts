import { catalogue } from './catalogue';
import { declared, editorRows, items, type DeclaredField } from './declarations';
import { rowMarkup } from './row-markup';

/**
 * Groups of rows that several dialogs show alike, named once: `<div data-rows="sql-rows-out">`
 * in a template stands for the group (its other attributes, such as a style, go to the group's
 * first row). Each is written for the dialog's node type (its catalogue's keys). In the sql and
 * the view dialogs: sql-rows-out, how a node that answers SQL rows sends them (rows as, split,
 * rows per message, tick flow control, parts ahead); incremental-rows, incremental mode and its
 * watermark and key columns.
 */
const ROW_GROUPS: Record<string, (type: string) => string> = {
  'sql-rows-out': () =>
    '<div class="form-row" data-row="rowFormat" data-icon="table" data-labels="rows"></div>' +
    '<div class="form-row" data-row="split"></div>' +
    '<div data-when="split">' +
    '<div class="form-row" data-row="rowsPerMsg" data-icon="th-list"></div>' +
    '<div class="form-row" data-row="flowControl"></div>' +
    '</div>' +
    '<div class="form-row" data-row="partsAhead" data-icon="tachometer" data-when="split flowControl"></div>',
  'incremental-rows': (type) =>
    '<div class="form-row" data-row="incremental"></div>' +
    '<div data-when="incremental">' +
    '<div class="form-row" data-row="watermarkColumn" data-icon="clock-o"></div>' +
    '<div class="form-row" data-row="keyColumn" data-icon="key"></div>' +
    `<div class="form-tips" data-i18n="[html]${type}.label.incrementalTip"></div>` +
    '</div>',
};

function expandRowGroups(type: string, template: JQuery): void {
  template.find('[data-rows]').each(function () {
    const placeholder = $(this);
    const name = placeholder.attr('data-rows') ?? '';
    const markup = ROW_GROUPS[name];
    if (!markup) throw new Error(`no group of dialog rows named "${name}"`);
    const group = $(markup(type));
    for (const attr of Array.from(this.attributes)) {
      if (attr.name !== 'data-rows') group.first().attr(attr.name, attr.value);
    }
    placeholder.replaceWith(group);
  });
}

/** A dialog row of one field, as a template writes it. */
function standardRow(field: string, attrs: Record<string, string> = {}): JQuery {
  return $('<div class="form-row">').attr({ 'data-row': field, ...attrs });
}

/**
 * The rows every action dialog has, added where its template does not write them itself:
 * - unless the template has a `server` row, it starts with server, then operation and project
 *   where the type declares them, then the item name of a resourceNode (its icon, shown
 *   unless the operation is list);
 * - unless it has an `outputProperty` row, outputProperty and name follow its last row (before
 *   the tips that end it), and the catalogue's `label.tip`, where it has one and no element
 *   of the template shows it, ends the dialog;
 * - the servers a message may choose (msg.server) come right after the server row, unless the
 *   template places them itself.
 * A template written in full (every row, the older pattern) gets nothing added.
 */
function standardRows(type: string, spec: Record<string, DeclaredField>, template: JQuery): void {
  const has = (field: string): boolean => template.find(`[data-row='${field}']`).length > 0;
  if (spec.server && !has('server')) {
    const head = ['server', 'operation', 'project'].filter((f) => spec[f]).map((f) => standardRow(f));
    const item = items[type];
    if (item && spec[item.field] && !has(item.field)) {
      head.push(standardRow(item.field, { 'data-icon': item.icon, 'data-when': 'operation!=list' }));
    }
    template.prepend(head);
  }
  // The servers a message may choose follow the node's own server, wherever the template put it.
  if (spec.servers && !has('servers')) template.find("[data-row='server']").first().after(standardRow('servers'));
  if (spec.outputProperty && !has('outputProperty')) {
    const tail = ['outputProperty', 'name'].filter((f) => spec[f] && !has(f)).map((f) => standardRow(f));
    let endingTips = template.children().last();
    while (endingTips.length && endingTips.is('.form-tips') && endingTips.prev().is('.form-tips'))
      endingTips = endingTips.prev();
    if (endingTips.is('.form-tips')) endingTips.before(tail);
    else template.append(tail);
    const tipKey = `${type}.label.tip`;
    if (catalogue(type)('label.tip') !== tipKey && !template.find(`[data-i18n$='${tipKey}']`).length) {
      template.append($('<div class="form-tips">').attr('data-i18n', `[html]${tipKey}`));
    }
  }
}

/**
 * A SQL row: a label row (with an expand button when the row has `data-expand`) and, after it, an
 * editor row of `height` px (data-editor); ./sql-editors.ts opens its editor.
 */
function sqlRow(type: string, row: JQuery, field: string, prefix: string): void {
  const expand = row.is('[data-expand]');
  editorRows[type].push({ field, preview: row.attr('data-preview'), expand, fill: row.is('[data-fill]') });
  const height = Number(row.attr('data-editor'));
  const classes = row.attr('class') ?? '';
  const when = row.attr('data-when');
  const button = expand
    ? '<div style="position: absolute; right: 0; display: inline-block; text-align: right;">' +
      `<button type="button" id="${prefix}${field}-expand" class="red-ui-button red-ui-button-small">` +
      '<i class="fa fa-expand"></i></button></div>'
    : '';
  row
    .css({ 'margin-bottom': '0px', ...(expand ? { position: 'relative' } : {}) })
    .html(
      `<label for="${prefix}${field}"><i class="fa fa-${row.attr('data-icon') ?? 'file-code-o'}"></i> <span ` +
        `data-i18n="${type}.label.${field}"></span></label><input type="hidden" id="${prefix}${field}">${button}`,
    );
  row.after(
    `<div class="${classes} node-text-editor-row"${when ? ` data-when="${when}"` : ''}>` +
      `<div style="height: ${height}px; min-height: ${Math.round((height * 2) / 3)}px;" class="node-text-editor" ` +
      `id="${prefix}${field}-editor"></div></div>`,
  );
}

/**
 * Fills the rows of a node type's dialog template that name a declared field, so the rows every
 * dialog shares are written once, here. A row is `<div class="form-row …" data-row="field">`:
 *   data-row="server operation project"  one row per field, alike but for the field;
 *   data-icon="cube"       the label's Font Awesome icon (server, name, operation, project,
 *                          outputProperty have their own);
 *   data-width="150px"     the input's width (70%, numbers 100px);
 *   data-unit="ms"         a catalogue label after the input (a number's unit);
 *   data-labels="rows"     a select's option labels: `label.<labels><Value>` (operation: "op");
 *   data-also="threshold"  a second, short field in the same row;
 *   data-list="a,b"        suggestions under a text field (a datalist);
 *   data-editor="120"      a SQL code editor of that height (a label row and an editor row), with
 *                          data-preview="database"  a Preview in the database that field names,
 *                          data-expand  a button to Node-RED's larger editor,
 *                          data-fill    the height the dialog has left (oneditresize).
 * Any element of the template may say when it shows (`data-when`, see conditionalRows). The rows
 * every action dialog has are added where the template leaves them out (standardRows).
 * The kind of input comes from the declaration: checkbox, select, TypedInput, number,
 * credential, config node or text. Labels and placeholders are the node's catalogue keys
 * (`<type>.label.<field>`, `<type>.placeholder.<field>` where the catalogue has one).
 * Called right after registerType: Node-RED reads the template only when a dialog opens.
 */
export function buildForm(type: string): void {
  const def = RED.nodes.getType(type);
  if (!def) throw new Error(`${type} is not registered`);
  const spec = declared[type] ?? {};
  const prefix = def.category === 'config' ? 'node-config-input-' : 'node-input-';
  $(`script[data-template-name='${type}']`).each(function () {
    const script = $(this);
    if (script.attr('data-built')) return; // built already (Node-RED loaded this node set again)
    const template = $('<div>').html(script.html());
    editorRows[type] = [];
    expandRowGroups(type, template);
    // A row naming several fields stands for one row each, alike but for the field.
    template.find('[data-row]').each(function () {
      const row = $(this);
      const fields = (row.attr('data-row') ?? '').split(/\s+/);
      for (const field of fields.slice(1).reverse()) row.after(row.clone().attr('data-row', field));
      row.attr('data-row', fields[0]);
    });
    standardRows(type, spec, template);
    template.find('[data-row]').each(function () {
      const row = $(this);
      const field = row.attr('data-row') ?? '';
      const entry = spec[field];
      const credential = def.credentials ? def.credentials[field] : undefined;
      if (!entry && !credential)
        throw new Error(`${type}: the dialog row "${field}" names no declared field (src/schema/nodes.ts)`);
      row.removeAttr('data-row');
      if (row.attr('data-editor')) sqlRow(type, row, field, prefix);
      else row.html(rowMarkup(type, row, field, entry, credential, prefix));
      row.removeAttr(
        'data-icon data-width data-unit data-labels data-editor data-also data-list data-preview data-expand data-fill',
      );
    });
    script.text(template.html()).attr('data-built', 'true');
  });
}
