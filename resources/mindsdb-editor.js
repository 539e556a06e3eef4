/*
 * Editor code shared by every MindsDB node's edit dialog. Node-RED serves this file from the
 * package's resources/ folder, with resources/mindsdb-defaults.js (each node type's declaration,
 * written by the build from src/schema/nodes.ts), and runs a node's own editor script only once
 * both have loaded, so each node's .html holds only what is particular to that node: the literal
 * registerType the Flow Library reads, and its own dialog rows (buildForm adds the rows every
 * action dialog has).
 */
(function (global) {
    "use strict";
    if (global.MindsDBEditor) { return; } // each node's .html names this file; one copy is enough

    var PACKAGE = "@mindsdb-flows/node-red-mindsdb";
    var ENV_REFERENCE = /^\$\{[^}]+\}$/;
    var FROM_MSG_AND_CONTEXT = ["msg", "flow", "global", "env"];

    /** The catalogue lookup of one node type (validators run without a node `this`). */
    function catalogue(type) {
        return function (key, opts) {
            var def = RED.nodes.getType(type);
            return def && def._ ? def._(type + "." + key, opts) : key;
        };
    }

    /** Inputs of properties the saved node lacks (a hand-written or older flow) start at their defaults. */
    function fillMissingDefaults(type, node, prefix) {
        var defaults = RED.nodes.getType(type).defaults;
        Object.keys(defaults).forEach(function (key) {
            if (node[key] !== undefined || defaults[key].type) { return; }
            var input = $("#" + prefix + key);
            if (!input.length) { return; }
            if (input.is(":checkbox")) { input.prop("checked", defaults[key].value === true); } else { input.val(defaults[key].value); }
        });
    }

    /** A dialog value as trimmed text ("" for nothing). */
    function textOf(v) {
        return String(v === undefined || v === null ? "" : v).trim();
    }

    /**
     * Whether `s` is a number under `rule` ({integer, min, max, above}): the same patterns and
     * bounds as the runtime's numberOf (src/schema/fields.ts), so the dialog and the runtime
     * accept the same values.
     */
    function numberFits(s, rule) {
        if (!(rule.integer ? /^\d+$/ : /^(\d+\.?\d*|\.\d+)$/).test(s)) { return false; }
        var n = Number(s);
        return isFinite(n) &&
            (rule.min === undefined || n >= rule.min) &&
            (rule.max === undefined || n <= rule.max) &&
            (rule.above === undefined || n > rule.above);
    }

    /** The type a TypedInput has in the open dialog, else as saved, else `fallback`. */
    function liveType(node, typeField, fallback) {
        return $("#node-input-" + typeField).val() || (node && node[typeField]) || fallback;
    }

    /**
     * The dialog checks a declaration names (`Check` in src/schema/fields.ts). Each gets the check,
     * the value and the node, and says whether the value passes; one that returns a function hands
     * the decision to that validator (Node-RED's own TypedInput check, with its own message).
     */
    var CHECKS = {
        number: function (c, v) {
            if (v === undefined) { return true; } // flows saved before the field existed
            var s = textOf(v);
            if (s === "") { return c.blank === true; }
            return ENV_REFERENCE.test(s) || numberFits(s, c.number);
        },
        oneOf: function (c, v) {
            return (c.optional && v === undefined) || c.oneOf.indexOf(v) !== -1;
        },
        jsonObject: function (c, v) {
            return blankOrJsonObject(v);
        },
        url: function (c, v) {
            var s = textOf(v);
            return ENV_REFERENCE.test(s) || /^https?:\/\/[^\s\/?#]+/i.test(s);
        },
        apiPrefix: function (c, v) {
            var s = textOf(v);
            return s === "" || ENV_REFERENCE.test(s) || (/^\//.test(s) && !/[\s?#]/.test(s));
        },
        pattern: function (c, v) {
            var s = textOf(v);
            return s === "" || new RegExp(c.pattern, "i").test(s);
        },
        msgProperty: function () {
            return RED.validators.typedInput({ type: "msg", allowBlank: true, allowUndefined: true });
        },
        typedInput: function (c, v, node) {
            var type = liveType(node, c.typedInput, "str");
            if (c.jsonObject && type === "json") { return blankOrJsonObject(v); }
            // MindsDB refuses a file name with an extension: the file becomes the table files.<name>.
            if (c.noExtension && type === "str" && /[^.]\.[^.]+$/.test(textOf(v))) { return false; }
            return RED.validators.typedInput({ typeField: c.typedInput, allowBlank: true, allowUndefined: true });
        }
    };

    /** The `validate` function of a declared property: its check (named by the check's first key), its message from the catalogue's errors. */
    function validator(t, key, entry) {
        var name = Object.keys(entry.check)[0];
        var errorKey = "errors." + (entry.error || key);
        return function (v, opt) {
            var verdict = CHECKS[name](entry.check, v, this);
            if (typeof verdict === "function") { return verdict.call(this, v, opt); }
            return verdict ? true : (opt ? t(errorKey) : false);
        };
    }

    /** What each node type declares (MindsDBEditor.defaults), for its dialog rows. */
    var declared = {};
    /** The fields each node type's dialog edits in a SQL code editor (its `data-editor` rows). */
    var editorRows = {};

    /**
     * A node type's declaration as the build wrote it (resources/mindsdb-defaults.js, from
     * src/schema/nodes.ts). Each .html loads that file beside this one; Node-RED runs a node's
     * inline scripts only once every script it names has loaded, in whatever order they came.
     */
    function declaration(type) {
        var all = global.MindsDBDeclarations;
        if (!all || !all[type]) { throw new Error(type + ": no declaration in resources/mindsdb-defaults.js (run npm run build)"); }
        return all[type];
    }

    /**
     * A node type's `defaults` for registerType: Node-RED's value, type and required as declared,
     * and each declared `check` turned into a `validate` function.
     */
    function defaults(type) {
        var spec = declaration(type).defaults;
        var t = catalogue(type);
        var out = {};
        Object.keys(spec).forEach(function (key) {
            var entry = spec[key];
            var d = { value: entry.value };
            if (entry.type !== undefined) { d.type = entry.type; }
            if (entry.required !== undefined) { d.required = entry.required; }
            if (entry.check) { d.validate = validator(t, key, entry); }
            out[key] = d;
        });
        declared[type] = spec;
        return out;
    }

    /** A node type's `credentials` for registerType, as declared. */
    function credentials(type) {
        return JSON.parse(JSON.stringify(declaration(type).credentials));
    }

    /** The icon of a row when the template names none: the rows every dialog has look alike. */
    var ROW_ICONS = { server: "server", name: "tag", outputProperty: "sign-out", operation: "wrench", project: "folder-o" };

    /** The markup inside one dialog row (see buildForm), from what the declaration says the field is. */
    function rowMarkup(type, row, field, entry, credential, prefix) {
        entry = entry || {};
        var t = catalogue(type);
        var id = prefix + field;
        var icon = row.attr("data-icon") || ROW_ICONS[field] || "pencil";
        var label = '<label for="' + id + '"><i class="fa fa-' + icon + '"></i> <span data-i18n="' + type + ".label." + field + '"></span></label>';
        var placeholderKey = type + ".placeholder." + field;
        var placeholder = t("placeholder." + field) !== placeholderKey ? ' data-i18n="[placeholder]' + placeholderKey + '"' : "";
        var width = ' style="width: ' + (row.attr("data-width") || "70%") + ';"';
        var unit = row.attr("data-unit") ? ' <span data-i18n="' + type + ".label." + row.attr("data-unit") + '"></span>' : "";
        var also = row.attr("data-also");
        if (also) {
            // A second, short field in the same row (host and port, limit and threshold).
            var alsoKey = type + ".placeholder." + also;
            return label + '<input type="text" id="' + id + '" style="width: ' + (row.attr("data-width") || "80px") + ';"' + placeholder + ">" +
                '<label for="' + prefix + also + '" style="margin-left: 10px; width: auto;" data-i18n="' + type + ".label." + also + '"></label>' +
                '<input type="text" id="' + prefix + also + '" style="width: 80px;"' + (t("placeholder." + also) !== alsoKey ? ' data-i18n="[placeholder]' + alsoKey + '"' : "") + ">";
        }
        if (credential) {
            return label + '<input type="' + (credential.type === "password" ? "password" : "text") + '" id="' + id + '"' + width + ' autocomplete="off"' + placeholder + ">";
        }
        if (entry.type) { return label + '<input type="text" id="' + id + '">'; }
        if (typeof entry.value === "boolean") {
            return '<label>&nbsp;</label><input type="checkbox" id="' + id + '" style="display: inline-block; width: auto; vertical-align: top;">' +
                '<label for="' + id + '" style="width: auto;" data-i18n="' + type + ".label." + field + '"></label>';
        }
        var check = entry.check || {};
        if (check.oneOf) {
            var labels = row.attr("data-labels") || (field === "operation" ? "op" : field);
            return label + '<select id="' + id + '"' + width + ">" + check.oneOf.map(function (v) {
                return '<option value="' + v + '" data-i18n="' + type + ".label." + labels + v.charAt(0).toUpperCase() + v.slice(1) + '"></option>';
            }).join("") + "</select>";
        }
        if (check.typedInput) {
            return label + '<input type="text" id="' + id + '"' + width + placeholder + '><input type="hidden" id="' + id + 'Type">';
        }
        if (check.number) {
            return label + '<input type="text" id="' + id + '" style="width: ' + (row.attr("data-width") || "100px") + ';"' + placeholder + ">" + unit;
        }
        var list = row.attr("data-list");
        if (list) {
            // Suggestions the browser offers under a free text field (engines, providers, schedules).
            return label + '<input type="text" id="' + id + '" list="' + id + '-list"' + width + ' autocomplete="off"' + placeholder + ">" +
                '<datalist id="' + id + '-list">' + list.split(",").map(function (v) { return '<option value="' + v.trim() + '"></option>'; }).join("") + "</datalist>";
        }
        return label + '<input type="text" id="' + id + '"' + width + ' autocomplete="off"' + placeholder + ">";
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
     *   data-editor="120"      a SQL code editor of that height (a label row and an editor row).
     * Any element of the template may say when it shows (`data-when`, see conditionalRows). The rows
     * every action dialog has are added where the template leaves them out (standardRows).
     * The kind of input comes from the declaration: checkbox, select, TypedInput, number,
     * credential, config node or text. Labels and placeholders are the node's catalogue keys
     * (`<type>.label.<field>`, `<type>.placeholder.<field>` where the catalogue has one).
     * Called right after registerType: Node-RED reads the template only when a dialog opens.
     */
    function buildForm(type) {
        var def = RED.nodes.getType(type);
        var spec = declared[type] || {};
        var prefix = def.category === "config" ? "node-config-input-" : "node-input-";
        $("script[data-template-name='" + type + "']").each(function () {
            if ($(this).attr("data-built")) { return; } // built already (Node-RED loaded this node set again)
            var template = $("<div>").html($(this).html());
            editorRows[type] = [];
            expandRowGroups(template);
            // A row naming several fields stands for one row each, alike but for the field.
            template.find("[data-row]").each(function () {
                var row = $(this);
                var fields = row.attr("data-row").split(/\s+/);
                fields.slice(1).reverse().forEach(function (field) { row.after(row.clone().attr("data-row", field)); });
                row.attr("data-row", fields[0]);
            });
            standardRows(type, spec, template);
            var rows = template.find("[data-row]");
            rows.each(function () {
                var row = $(this);
                var field = row.attr("data-row");
                var entry = spec[field];
                var credential = def.credentials && def.credentials[field];
                if (!entry && !credential) { throw new Error(type + ": the dialog row \"" + field + "\" names no declared field (src/schema/nodes.ts)"); }
                row.removeAttr("data-row");
                if (row.attr("data-editor")) {
                    editorRows[type].push(field);
                    var height = Number(row.attr("data-editor"));
                    var classes = row.attr("class");
                    row.css("margin-bottom", "0px").html('<label for="' + prefix + field + '"><i class="fa fa-' + (row.attr("data-icon") || "file-code-o") + '"></i> <span data-i18n="' + type + ".label." + field + '"></span></label><input type="hidden" id="' + prefix + field + '">');
                    row.after('<div class="' + classes + ' node-text-editor-row"' + (row.attr("data-when") ? ' data-when="' + row.attr("data-when") + '"' : "") + '><div style="height: ' + height + "px; min-height: " + Math.round(height * 2 / 3) + 'px;" class="node-text-editor" id="' + prefix + field + '-editor"></div></div>');
                } else {
                    row.html(rowMarkup(type, row, field, entry, credential, prefix));
                }
                row.removeAttr("data-icon data-width data-unit data-labels data-editor data-also data-list");
            });
            $(this).text(template.html()).attr("data-built", "true");
        });
    }

    /**
     * Groups of rows that several dialogs show alike, named once: `<div data-rows="sql-rows-out">`
     * in a template stands for the group (its other attributes, such as a style, go to the group's
     * first row). sql-rows-out: how a node that answers SQL rows sends them (rows as, split, rows
     * per message, tick flow control, parts ahead), in the sql and the view dialogs.
     */
    var ROW_GROUPS = {
        "sql-rows-out":
            '<div class="form-row" data-row="rowFormat" data-icon="table" data-labels="rows"></div>' +
            '<div class="form-row" data-row="split"></div>' +
            '<div data-when="split">' +
                '<div class="form-row" data-row="rowsPerMsg" data-icon="th-list"></div>' +
                '<div class="form-row" data-row="flowControl"></div>' +
            "</div>" +
            '<div class="form-row" data-row="partsAhead" data-icon="tachometer" data-when="split flowControl"></div>'
    };

    function expandRowGroups(template) {
        template.find("[data-rows]").each(function () {
            var placeholder = $(this);
            var name = placeholder.attr("data-rows");
            if (!ROW_GROUPS[name]) { throw new Error("no group of dialog rows named \"" + name + "\""); }
            var group = $(ROW_GROUPS[name]);
            $.each(this.attributes, function (_, attr) {
                if (attr.name !== "data-rows") { group.first().attr(attr.name, attr.value); }
            });
            placeholder.replaceWith(group);
        });
    }

    /** A dialog row of one field, as a template writes it. */
    function standardRow(field, attrs) {
        return $('<div class="form-row">').attr($.extend({ "data-row": field }, attrs));
    }

    /**
     * The rows every action dialog has, added where its template does not write them itself:
     * - unless the template has a `server` row, it starts with server, then operation and project
     *   where the type declares them, then the item name of a resourceNode (its icon, shown
     *   unless the operation is list);
     * - unless it has an `outputProperty` row, outputProperty and name follow its last row (before
     *   the tips that end it), and the catalogue's `label.tip`, where it has one and no element
     *   of the template shows it, ends the dialog.
     * A template written in full (every row, the older pattern) gets nothing added.
     */
    function standardRows(type, spec, template) {
        var has = function (field) { return template.find("[data-row='" + field + "']").length > 0; };
        if (spec.server && !has("server")) {
            var head = ["server", "operation", "project"].filter(function (f) { return spec[f]; }).map(function (f) { return standardRow(f); });
            var item = items[type];
            if (item && spec[item.field] && !has(item.field)) {
                head.push(standardRow(item.field, { "data-icon": item.icon, "data-when": "operation!=list" }));
            }
            template.prepend(head);
        }
        if (spec.outputProperty && !has("outputProperty")) {
            var tail = ["outputProperty", "name"].filter(function (f) { return spec[f] && !has(f); }).map(function (f) { return standardRow(f); });
            var endingTips = template.children().last();
            while (endingTips.length && endingTips.is(".form-tips") && endingTips.prev().is(".form-tips")) { endingTips = endingTips.prev(); }
            if (endingTips.is(".form-tips")) { endingTips.before(tail); } else { template.append(tail); }
            var tipKey = type + ".label.tip";
            if (catalogue(type)("label.tip") !== tipKey && !template.find("[data-i18n$='" + tipKey + "']").length) {
                template.append($('<div class="form-tips">').attr("data-i18n", "[html]" + tipKey));
            }
        }
    }

    /** The label style of a node with a name of its own, as Node-RED's core nodes show it. */
    function labelStyle() {
        return this.name ? "node_label_italic" : "";
    }

    /** A function returning the catalogue text `key` of `type` (for paletteLabel, outputLabels …). */
    function i18n(type, key) {
        var t = catalogue(type);
        return function () { return t(key); };
    }

    /** Blank, or the text of a JSON object. */
    function blankOrJsonObject(v) {
        var s = String(v === undefined || v === null ? "" : v).trim();
        if (s === "") { return true; }
        try {
            var parsed = JSON.parse(s);
            return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed);
        } catch (err) {
            return false;
        }
    }

    /** A TypedInput JSON type that also accepts blank, with the JSON editor behind its expand button. */
    function optionalJsonType(t, errorKey) {
        return {
            value: "json",
            label: "JSON",
            icon: "red/images/typedInput/json.svg",
            validate: function (v, o) {
                return blankOrJsonObject(v) ? true : (o ? t("errors." + errorKey) : false);
            },
            expand: function () {
                var that = this;
                var value = this.value();
                try { value = JSON.stringify(JSON.parse(value), null, 4); } catch (err) { /* keep the text as it is */ }
                RED.editor.editJSON({
                    value: value,
                    focus: true,
                    complete: function (v) {
                        var out = v;
                        try { out = JSON.stringify(JSON.parse(v)); } catch (err) { /* keep the text as it is */ }
                        that.value(out);
                    }
                });
            }
        };
    }

    /** Names containing `typed` (case-insensitive), as autoComplete suggestions. */
    function suggestions(items, typed) {
        var v = String(typed || "").toLowerCase();
        return items.filter(function (n) { return n.toLowerCase().indexOf(v) !== -1; })
            .slice(0, 100).map(function (n) { return { value: n, label: n }; });
    }

    /**
     * Suggestions for name fields, from the admin endpoint POST mindsdb/list/<what> on the server
     * picked in #node-input-server. Fetched when a field gets focus and kept for the dialog; any
     * failure gives no suggestions (free text is always allowed).
     */
    function namePicker() {
        var cache = {};
        function serverId() {
            var s = $("#node-input-server").val();
            return s && s !== "_ADD_" ? s : "";
        }
        function requestBody(server, project) {
            var body = { server: server };
            if (project) { body.project = project; }
            var cfg = RED.nodes.node(server);
            if (cfg && cfg.changed) {
                // Not deployed as it is now: the runtime connects with these values (stored secrets fill the gaps).
                var creds = cfg.credentials || {};
                body.config = {
                    url: cfg.url, apiPrefix: cfg.apiPrefix, authMode: cfg.authMode, tls: cfg.tls, timeout: cfg.timeout,
                    credentials: { session: creds.session, username: creds.username, password: creds.password, token: creds.token }
                };
            }
            return body;
        }
        function list(what, project) {
            var server = serverId();
            if (!server) { return Promise.resolve([]); }
            var key = what + "\n" + server + "\n" + (project || "");
            if (!cache[key]) {
                var pending = cache[key] = new Promise(function (resolve) {
                    // After a failure, ask again only after a pause (not on every keystroke).
                    var failed = function () {
                        resolve([]);
                        setTimeout(function () { if (cache[key] === pending) { delete cache[key]; } }, 10000);
                    };
                    $.ajax({
                        url: "mindsdb/list/" + what,
                        method: "POST",
                        contentType: "application/json",
                        dataType: "json",
                        data: JSON.stringify(requestBody(server, project)),
                        timeout: 15000
                    }).done(function (res) {
                        if (res && res.ok && Array.isArray(res.items)) {
                            resolve(res.items.filter(function (n) { return typeof n === "string"; }));
                        } else { failed(); }
                    }).fail(failed);
                });
            }
            return cache[key];
        }
        /** A TypedInput "string" type whose input suggests the names `source()` resolves to. */
        function stringType(source) {
            return {
                value: "str",
                label: RED._("typedInput.type.str", { defaultValue: "string" }),
                icon: "red/images/typedInput/az.svg",
                autoComplete: function (value, done) {
                    source().then(function (items) { done(suggestions(items, value)); }, function () { done([]); });
                }
            };
        }
        /** Makes #inputId a TypedInput (string with suggestions, msg, flow, global, env), prefetching on focus. */
        function nameInput(inputId, source) {
            var input = $("#" + inputId);
            input.typedInput({
                default: "str",
                types: [stringType(source)].concat(FROM_MSG_AND_CONTEXT),
                typeField: "#" + inputId + "Type"
            });
            input.next(".red-ui-typedInput-container").on("focusin", function () {
                if (input.typedInput("type") === "str") { source(); }
            });
        }
        /** Suggestions on a plain text input (no TypedInput). */
        function textInput(inputId, source) {
            var input = $("#" + inputId);
            input.autoComplete({
                minLength: 0,
                search: function (value, done) {
                    source().then(function (items) { done(suggestions(items, value)); }, function () { done([]); });
                }
            });
            input.on("focus", function () { source(); });
        }
        $("#node-input-server").on("change", function () { cache = {}; });
        return { list: list, stringType: stringType, nameInput: nameInput, textInput: textInput };
    }

    /** The literal text of a string-typed TypedInput, or "" when it takes its value from msg/context. */
    function literalValue(inputId) {
        var input = $("#" + inputId);
        return input.typedInput("type") === "str" ? String(input.typedInput("value") || "").trim() : "";
    }

    /**
     * An action node's definition, but for what the Flow Library reads from its .html: the node's
     * registerType holds category, colour, icon, inputs and outputs as literals and spreads this
     * in (properties written after the spread replace these). It brings the declared defaults and
     * credentials, the palette label, the label style, labels of the ports, a dialog prepared by
     * `prepare` below, and SQL editors closed on save or cancel. `spec` names what differs:
     *   label(t)                  the canvas label (`this` is the node, `t` its catalogue), or
     *   noun, plural, nameField   for a label like "get model m1" / "list models";
     *   inputLabel                a catalogue key for the input port;
     *   outputLabel               a catalogue key, or a function of the node returning one
     *                             (default "label.outputResult");
     *   rowsOperation             the operation that sends rows (the port is labelled
     *                             "label.outputRows" while it is chosen, else "label.outputResult");
     *   prepare(picker)           the node's own inputs (`this` is the node), name pickers at hand.
     */
    function actionNode(type, spec) {
        var t = catalogue(type);
        var definition = {
            defaults: defaults(type),
            paletteLabel: i18n(type, "paletteLabel"),
            label: spec.label
                ? function () { return spec.label.call(this, t); }
                : function () { return operationLabel(this, spec.noun, spec.plural, spec.nameField); },
            labelStyle: labelStyle,
            outputLabels: function () {
                var key = typeof spec.outputLabel === "function" ? spec.outputLabel(this) : spec.outputLabel;
                if (spec.rowsOperation) { key = this.operation === spec.rowsOperation ? "label.outputRows" : "label.outputResult"; }
                return t(key || "label.outputResult");
            },
            oneditprepare: function () {
                prepare(type, this);
                if (spec.prepare) { spec.prepare.call(this, namePicker()); }
            },
            oneditsave: saveEditors,
            oneditcancel: cancelEditors
        };
        if (spec.inputLabel) { definition.inputLabels = i18n(type, spec.inputLabel); }
        var secrets = credentials(type);
        if (Object.keys(secrets).length) { definition.credentials = secrets; }
        return definition;
    }

    /** The item a resourceNode names (its field and that row's icon), for buildForm. */
    var items = {};

    /**
     * The definition of a node with an operation and an item it names (chatbot, skill, agent, job,
     * knowledge base, database, file, model): an action node whose item name, and project where
     * it has one, suggest what the server has, and whose dialog buildForm starts with the rows
     * such a node has (see standardRows). Every part of `spec` is optional:
     *   itemIcon       the icon of the item name's row (default "pencil");
     *   item           the item name's field (default: the one declared `item` in
     *                  src/schema/nodes.ts, else "itemName");
     *   resource       the canvas's noun (default: the type without "mindsdb-", with spaces:
     *                  "knowledge base");
     *   collection     what the picker lists (default: the noun's plural, "_" for spaces:
     *                  "knowledge_bases");
     *   plural         the canvas's plural (default: the collection when given, else the noun's
     *                  plural: "knowledge bases");
     *   prepare(picker, project)  the node's own inputs (project() is the literal project, or "");
     *   outputLabel, rowsOperation   as for actionNode.
     */
    function resourceNode(type, spec) {
        spec = spec || {};
        var resource = spec.resource || type.replace(/^mindsdb-/, "").replace(/-/g, " ");
        var collection = spec.collection || resource.replace(/ /g, "_") + "s";
        var fields = declaration(type).defaults;
        var field = spec.item || Object.keys(fields).filter(function (f) { return fields[f].item; })[0] || "itemName";
        var definition = actionNode(type, {
            noun: resource,
            plural: spec.plural || spec.collection || resource + "s",
            nameField: field,
            outputLabel: spec.outputLabel,
            rowsOperation: spec.rowsOperation,
            prepare: function (picker) {
                var hasProject = Boolean(declared[type].project);
                var project = function () { return hasProject ? literalValue("node-input-project") : ""; };
                if (hasProject) { picker.nameInput("node-input-project", function () { return picker.list("projects"); }); }
                picker.nameInput("node-input-" + field, function () { return hasProject ? picker.list(collection, project()) : picker.list(collection); });
                if (spec.prepare) { spec.prepare(picker, project); }
            }
        });
        items[type] = { field: field, icon: spec.itemIcon || "pencil" };
        return definition;
    }

    /**
     * What every action dialog does first: inputs of properties the saved node lacks start at their
     * defaults, the Output row is a msg-property TypedInput, JSON fields get the JSON editor, the
     * template's SQL rows (`data-editor`) get their code editors, and rows with `data-when` show
     * when they apply.
     */
    function prepare(type, node) {
        fillMissingDefaults(type, node, "node-input-");
        $("#node-input-outputProperty").typedInput({ default: "msg", types: ["msg"] });
        jsonInputs(type);
        if (editorRows[type]) { sqlEditors(node, editorRows[type]); }
        conditionalRows("node-input-");
    }

    /**
     * Every field declared as a JSON object (a database's other parameters, a model's USING, the
     * predict params) edits as a JSON TypedInput with Node-RED's JSON editor behind it; a
     * TypedInput field may also take its object from msg, flow, global or env.
     */
    function jsonInputs(type) {
        var spec = declared[type];
        var t = catalogue(type);
        Object.keys(spec).forEach(function (field) {
            var check = spec[field].check;
            if (!check || !check.jsonObject) { return; }
            var options = { default: "json", types: [optionalJsonType(t, field)] };
            if (check.typedInput) {
                options.types = options.types.concat(FROM_MSG_AND_CONTEXT);
                options.typeField = "#node-input-" + check.typedInput;
            }
            $("#node-input-" + field).typedInput(options);
        });
    }

    /**
     * Shows each element of the open dialog that has `data-when` only while all its conditions
     * (space-separated) hold: `operation=create,update,msg` (the select #<prefix>operation has one
     * of those values), `operation!=list` (it has not), `batch` (the checkbox #<prefix>batch is
     * ticked). The elements follow every change of the fields they name.
     */
    function conditionalRows(prefix) {
        // A config node's dialog opens over its user's: each looks only at its own form.
        var form = prefix === "node-config-input-" ? "#node-config-dialog-edit-form" : "#dialog-form";
        var rows = $(form + " [data-when]");
        if (!rows.length) { return; }
        var holds = function (condition) {
            var m = /^(\w+)(!?=)(.*)$/.exec(condition);
            if (!m) { return $("#" + prefix + condition).prop("checked") === true; }
            var listed = m[3].split(",").indexOf($("#" + prefix + m[1]).val()) !== -1;
            return m[2] === "=" ? listed : !listed;
        };
        var update = function () {
            rows.each(function () {
                var row = $(this);
                row.toggle(row.attr("data-when").split(/\s+/).every(holds));
            });
        };
        var fields = {};
        rows.each(function () {
            $(this).attr("data-when").split(/\s+/).forEach(function (c) { fields["#" + prefix + c.split(/!?=/)[0]] = true; });
        });
        $(Object.keys(fields).join(", ")).on("change", update);
        update();
    }

    /** oneditsave and oneditcancel of a dialog with SQL editor rows: the text goes back to the node, or not. */
    function saveEditors() { closeSqlEditors(this, true); }
    function cancelEditors() { closeSqlEditors(this, false); }

    /**
     * The canvas label of a node with an operation and a name TypedInput, unless it has a name of
     * its own: "get model m1", "list models", "msg.operation database env.DB", "agent a1 completions".
     */
    function operationLabel(node, noun, plural, nameField) {
        if (node.name) { return node.name; }
        var op = node.operation || declared[node.type].operation.value;
        if (op === "list") { return "list " + plural; }
        var value = String(node[nameField] || "").trim();
        var type = node[nameField + "Type"];
        if (value && type && type !== "str") { value = type + "." + value; }
        if (op === "completions") { return noun + (value ? " " + value : "") + " completions"; }
        return (op === "msg" ? "msg.operation" : op) + " " + noun + (value ? " " + value : "");
    }

    /**
     * Code editors for SQL text properties: a div #node-input-<field>-editor shows node[field];
     * closeSqlEditors copies each back into its hidden #node-input-<field> (on save) and destroys it.
     */
    function sqlEditors(node, fields) {
        var editors = {};
        fields.forEach(function (field) {
            editors[field] = RED.editor.createEditor({ id: "node-input-" + field + "-editor", mode: "ace/mode/sql", value: node[field] || "" });
        });
        node.mindsdbSqlEditors = editors;
    }
    function closeSqlEditors(node, save) {
        var editors = node.mindsdbSqlEditors || {};
        Object.keys(editors).forEach(function (field) {
            if (save) { $("#node-input-" + field).val(editors[field].getValue()); }
            editors[field].destroy();
        });
        delete node.mindsdbSqlEditors;
    }

    /** Placeholders that always hold a whole number; any other holds text (a name, a MindsDB state). */
    var NUMBER_PLACEHOLDERS = ["count", "version", "seconds", "kb"];

    /**
     * The values of a status text made from `template` ("__count__ rows" and "42 rows" give
     * {count: "42"}), or null when the text is not that template's. The placeholders are those of
     * src/runtime/status-texts.ts, which fills them in; a number placeholder matches only digits,
     * so that "Warteschlange voll" is not "__model__ v__version__".
     */
    function statusValues(template, text) {
        var names = [];
        var pattern = template.split(/__(\w+?)__/).map(function (part, i) {
            if (i % 2 === 1) {
                names.push(part);
                return NUMBER_PLACEHOLDERS.indexOf(part) !== -1 ? "(\\d+)" : "([\\s\\S]+?)";
            }
            return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        }).join("");
        var m = new RegExp("^" + pattern + "$").exec(text);
        if (!m) { return null; }
        var values = {};
        names.forEach(function (name, i) { values[name] = m[i + 1]; });
        return values;
    }

    /**
     * A status text of one of our nodes in the editor's language, or null to leave it as it is.
     * Node-RED's editor translates a status text that is a key of the node's catalogue itself (our
     * texts without values, "mindsdb-sql.status.requesting"), but passes no values; a text with
     * values arrives in English ("42 rows", from the en-US template "__count__ rows"). Here it is
     * matched against the node type's en-US templates and the editor language's template is filled
     * with the same values ("42 Zeilen").
     */
    function translatedStatus(def, type, text) {
        var english = global.i18next && i18next.getResource("en-US", def.set.id, type + ".status");
        if (!english || typeof english !== "object") { return null; }
        for (var key in english) {
            if (typeof english[key] !== "string" || english[key].indexOf("__") === -1) { continue; }
            var values = statusValues(english[key], text);
            if (values) { return def._(type + ".status." + key, values); }
        }
        return null;
    }

    // Runs beside the editor's own status handler, before or after it: both change msg.text, so
    // whichever runs second sees the other's result (a translated text is no key and matches no
    // English template, so it stays).
    if (global.RED && RED.comms) {
        RED.comms.subscribe("status/#", function (topic, msg) {
            var node = RED.nodes.node(topic.split("/")[1]);
            var def = node && RED.nodes.getType(node.type);
            if (!def || !def.set || def.set.module !== PACKAGE || !msg || typeof msg.text !== "string") { return; }
            var text = translatedStatus(def, node.type, msg.text);
            if (text === null) { return; }
            msg.text = text;
            if (node.status === msg) {
                // The editor's handler ran first and drew the English text.
                node.dirtyStatus = true;
                RED.view.redrawStatus(node);
            }
        });
    }

    global.MindsDBEditor = {
        // a node's registerType: `...resourceNode(type, {itemIcon})` or `...actionNode(type, {…})`,
        // then buildForm(type); a config node takes defaults and credentials itself
        actionNode: actionNode,
        resourceNode: resourceNode,
        defaults: defaults,
        credentials: credentials,
        buildForm: buildForm,
        // pieces for a node's own dialog code
        catalogue: catalogue,
        conditionalRows: conditionalRows,
        fillMissingDefaults: fillMissingDefaults,
        labelStyle: labelStyle,
        literalValue: literalValue,
        statusValues: statusValues
    };
})(window);
