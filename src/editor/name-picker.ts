import { foldCase } from '../common/sql-names';
import { postJson, selectedServer, serverRequest } from './shared/server-choice';
import { FROM_MSG_AND_CONTEXT } from './shared/typed-input';

/** Names containing `typed` when case is ignored (foldCase), as autoComplete suggestions. */
function suggestions(items: string[], typed: string): Suggestion[] {
  const v = foldCase(String(typed || ''));
  return items
    .filter((n) => foldCase(n).includes(v))
    .slice(0, 100)
    .map((n) => ({ value: n, label: n }));
}

/** Where a name field's suggestions come from (a promise of names). */
export type NameSource = () => Promise<string[]>;

export interface NamePicker {
  /** The names of `what` on the picked server (in `project`, for what lives in one). */
  list(what: string, project?: string): Promise<string[]>;
  /** A TypedInput "string" type whose input suggests the names `source()` resolves to. */
  stringType(source: NameSource): TypedInputType;
  /** Makes #inputId a TypedInput (string with suggestions, msg, flow, global, env), prefetching on focus. */
  nameInput(inputId: string, source: NameSource): void;
  /** Suggestions on a plain text input (no TypedInput). */
  textInput(inputId: string, source: NameSource): void;
}

interface ListAnswer {
  ok?: boolean;
  items?: unknown;
}

/**
 * Suggestions for name fields, from the admin endpoint POST mindsdb/list/<what> on the server
 * picked in #node-input-server. Fetched when a field gets focus and kept for the dialog; any
 * failure gives no suggestions (free text is always allowed).
 */
export function namePicker(): NamePicker {
  let cache: Record<string, Promise<string[]>> = {};
  const list = (what: string, project?: string): Promise<string[]> => {
    const server = selectedServer();
    if (!server) return Promise.resolve([]);
    const key = `${what}\n${server}\n${project ?? ''}`;
    const known = cache[key];
    if (known) return known;
    const pending: Promise<string[]> = new Promise((resolve) => {
      // After a failure, ask again only after a pause (not on every keystroke).
      const failed = (): void => {
        resolve([]);
        setTimeout(() => {
          if (cache[key] === pending) delete cache[key];
        }, 10000);
      };
      const body: Record<string, unknown> = { ...serverRequest(server) };
      if (project) body.project = project;
      postJson<ListAnswer>(`mindsdb/list/${what}`, body, 15000).then((res) => {
        if (res?.ok && Array.isArray(res.items)) resolve(res.items.filter((n): n is string => typeof n === 'string'));
        else failed();
      }, failed);
    });
    cache[key] = pending;
    return pending;
  };
  const complete =
    (source: NameSource) =>
    (value: string, done: (items: Suggestion[]) => void): void => {
      source().then(
        (items) => done(suggestions(items, value)),
        () => done([]),
      );
    };
  const stringType = (source: NameSource): TypedInputType => ({
    value: 'str',
    label: RED._('typedInput.type.str', { defaultValue: 'string' }),
    icon: 'red/images/typedInput/az.svg',
    autoComplete: complete(source),
  });
  const nameInput = (inputId: string, source: NameSource): void => {
    const input = $(`#${inputId}`);
    input.typedInput({
      default: 'str',
      types: [stringType(source), ...FROM_MSG_AND_CONTEXT],
      typeField: `#${inputId}Type`,
    });
    input.next('.red-ui-typedInput-container').on('focusin', () => {
      if (input.typedInput('type') === 'str') void source();
    });
  };
  const textInput = (inputId: string, source: NameSource): void => {
    const input = $(`#${inputId}`);
    input.autoComplete({ minLength: 0, search: complete(source) });
    input.on('focus', () => {
      void source();
    });
  };
  $('#node-input-server').on('change', () => {
    cache = {};
  });
  return { list, stringType, nameInput, textInput };
}
