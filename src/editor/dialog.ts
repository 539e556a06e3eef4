import { catalogue } from './catalogue';
import { blankOrJsonObject } from './checks';
import { declared } from './declarations';
import { FROM_MSG_AND_CONTEXT } from './shared/typed-input';
import { openSqlEditors } from './sql-editors';

/** Inputs of properties the saved node lacks (a hand-written or older flow) start at their defaults. */
export function fillMissingDefaults(type: string, node: EditorNode, prefix: string): void {
  const def = RED.nodes.getType(type);
  if (!def) return;
  for (const [key, d] of Object.entries(def.defaults)) {
    if (node[key] !== undefined || d.type) continue;
    const input = $(`#${prefix}${key}`);
    if (!input.length) continue;
    if (input.is(':checkbox')) input.prop('checked', d.value === true);
    else input.val(d.value as string);
  }
}

/** A TypedInput JSON type that also accepts blank, with the JSON editor behind its expand button. */
function optionalJsonType(t: CatalogueFn, errorKey: string): TypedInputType {
  return {
    value: 'json',
    label: 'JSON',
    icon: 'red/images/typedInput/json.svg',
    validate: (v, o) => (blankOrJsonObject(v) ? true : o ? t(`errors.${errorKey}`) : false),
    expand() {
      const input = this;
      let value = input.value();
      try {
        value = JSON.stringify(JSON.parse(value), null, 4);
      } catch {
        /* keep the text as it is */
      }
      RED.editor.editJSON({
        value,
        focus: true,
        complete: (v) => {
          let out = v;
          try {
            out = JSON.stringify(JSON.parse(v));
          } catch {
            /* keep the text as it is */
          }
          input.value(out);
        },
      });
    },
  };
}

/**
 * Every field declared as a JSON object (a database's other parameters, a model's USING, the
 * predict params) edits as a JSON TypedInput with Node-RED's JSON editor behind it; a
 * TypedInput field may also take its object from msg, flow, global or env.
 */
function jsonInputs(type: string): void {
  const spec = declared[type] ?? {};
  const t = catalogue(type);
  for (const [field, entry] of Object.entries(spec)) {
    const check = entry.check;
    if (!check?.jsonObject) continue;
    const options: TypedInputOptions = { default: 'json', types: [optionalJsonType(t, field)] };
    if (check.typedInput) {
      options.types = options.types.concat(FROM_MSG_AND_CONTEXT);
      options.typeField = `#node-input-${check.typedInput}`;
    }
    $(`#node-input-${field}`).typedInput(options);
  }
}

/**
 * Shows each element of the open dialog that has `data-when` only while all its conditions
 * (space-separated) hold: `operation=create,update,msg` (the select #<prefix>operation has one
 * of those values), `operation!=list` (it has not), `batch` (the checkbox #<prefix>batch is
 * ticked). The elements follow every change of the fields they name.
 */
export function conditionalRows(prefix: string): void {
  // A config node's dialog opens over its user's: each looks only at its own form.
  const form = prefix === 'node-config-input-' ? '#node-config-dialog-edit-form' : '#dialog-form';
  const rows = $(`${form} [data-when]`);
  if (!rows.length) return;
  const holds = (condition: string): boolean => {
    const m = /^(\w+)(!?=)(.*)$/.exec(condition);
    if (!m) return $(`#${prefix}${condition}`).prop('checked') === true;
    const listed = m[3].split(',').includes(String($(`#${prefix}${m[1]}`).val()));
    return m[2] === '=' ? listed : !listed;
  };
  const conditionsOf = (row: JQuery): string[] => (row.attr('data-when') ?? '').split(/\s+/);
  const update = (): void => {
    rows.each(function () {
      const row = $(this);
      row.toggle(conditionsOf(row).every(holds));
    });
  };
  const fields = new Set<string>();
  rows.each(function () {
    for (const c of conditionsOf($(this))) fields.add(`#${prefix}${c.split(/!?=/)[0]}`);
  });
  $([...fields].join(', ')).on('change', update);
  update();
}

/**
 * Fields that list config nodes by id (the servers msg.server may choose): a select of several,
 * its options the config nodes of that type in the flows, by name. A node without a name cannot be
 * chosen by name, so it is shown but not selectable, with the catalogue's hint.
 */
function choiceLists(type: string, node: EditorNode): void {
  const t = catalogue(type);
  for (const [field, entry] of Object.entries(declared[type] ?? {})) {
    if (!entry.choices) continue;
    const select = $(`#node-input-${field}`);
    const saved = node[field];
    const chosen = new Set(Array.isArray(saved) ? saved.filter((id): id is string => typeof id === 'string') : []);
    select.empty();
    RED.nodes.eachConfig((config) => {
      if (config.type !== entry.choices) return;
      const name = typeof config.name === 'string' ? config.name : '';
      const option = $('<option>')
        .val(config.id)
        .text(name || `${t('label.unnamedServer')} (${String(config.url ?? config.id)})`);
      if (!name) option.prop('disabled', true);
      else if (chosen.has(config.id)) option.prop('selected', true);
      select.append(option);
    });
  }
}

/**
 * What every action dialog does first: inputs of properties the saved node lacks start at their
 * defaults, the Output row is a msg-property TypedInput, JSON fields get the JSON editor, the
 * template's SQL rows (`data-editor`) get their code editors, and rows with `data-when` show
 * when they apply.
 */
export function prepare(type: string, node: EditorNode): void {
  fillMissingDefaults(type, node, 'node-input-');
  choiceLists(type, node);
  $('#node-input-outputProperty').typedInput({ default: 'msg', types: ['msg'] });
  jsonInputs(type);
  openSqlEditors(type, node);
  conditionalRows('node-input-');
}
