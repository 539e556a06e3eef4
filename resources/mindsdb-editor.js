/*
 * Editor helpers shared by every MindsDB node's edit dialog. Node-RED serves this file from the
 * package's resources/ folder and loads it before it runs the nodes' own editor scripts, so each
 * node's .html holds only what is particular to that node.
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

    /** A validator: a whole number >= min, or a ${ENV_VAR} (Node-RED substitutes it when the flow starts). */
    function wholeNumber(t, min, errorKey) {
        return function (v, opt) {
            if (v === undefined) { return true; }
            var s = String(v === null ? "" : v).trim();
            if (ENV_REFERENCE.test(s) || (/^\d+$/.test(s) && Number(s) >= min)) { return true; }
            return opt ? t("errors." + errorKey) : false;
        };
    }

    /** A validator: one of the given values (undefined too, when `optional`: older flows lack it). */
    function oneOf(t, values, errorKey, optional) {
        return function (v, opt) {
            if ((optional && v === undefined) || values.indexOf(v) !== -1) { return true; }
            return opt ? t("errors." + errorKey) : false;
        };
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
     * The behaviour of a chatbot, skill or agent node: an operation (list/get/create/update/delete,
     * or msg.operation), a project and an item name. The node's .html writes its registerType with
     * a literal category, colour and icon (the Flow Library reads those from the file) and takes
     * defaults, labels and oneditprepare from here. `spec` names what differs:
     *   type, resource ("chatbot"), collection ("chatbots"), operations,
     *   defaults (extra properties), toggleRows(op) (extra rows to show/hide),
     *   prepare(picker, project) (extra inputs), outputLabel(node) (a catalogue key).
     */
    function resourceNode(spec) {
        // The picker asks for the collection; the canvas says it in words ("knowledge bases").
        var plural = spec.plural || spec.collection;
        var t = catalogue(spec.type);
        var defaults = {
            server: { value: "", type: "mindsdb-server", required: true },
            name: { value: "" },
            operation: { value: "list", validate: oneOf(t, spec.operations, "operation", false) },
            project: { value: "mindsdb", validate: RED.validators.typedInput({ typeField: "projectType", allowBlank: true, allowUndefined: true }) },
            projectType: { value: "str" },
            itemName: { value: "", validate: RED.validators.typedInput({ typeField: "itemNameType", allowBlank: true, allowUndefined: true }) },
            itemNameType: { value: "str" }
        };
        Object.keys(spec.defaults || {}).forEach(function (key) { defaults[key] = spec.defaults[key]; });
        defaults.outputProperty = { value: "payload", validate: RED.validators.typedInput({ type: "msg", allowBlank: true, allowUndefined: true }) };
        defaults.version = { value: 1 };
        return {
            defaults: defaults,
            paletteLabel: function () { return t("paletteLabel"); },
            label: function () { return operationLabel(this, defaults.operation.value, spec.resource, plural, "itemName"); },
            labelStyle: function () { return this.name ? "node_label_italic" : ""; },
            outputLabels: function () { return t(spec.outputLabel ? spec.outputLabel(this) : "label.outputResult"); },
            oneditprepare: function () {
                fillMissingDefaults(spec.type, this, "node-input-");
                var picker = namePicker();
                var project = function () { return literalValue("node-input-project"); };
                picker.nameInput("node-input-project", function () { return picker.list("projects"); });
                picker.nameInput("node-input-itemName", function () { return picker.list(spec.collection, project()); });
                $("#node-input-outputProperty").typedInput({ default: "msg", types: ["msg"] });
                if (spec.prepare) { spec.prepare(picker, project); }
                var showRows = function () {
                    var op = $("#node-input-operation").val() || "list";
                    $("." + spec.type + "-item-row").toggle(op !== "list");
                    if (spec.toggleRows) { spec.toggleRows(op); }
                };
                $("#node-input-operation").on("change", showRows);
                showRows();
            }
        };
    }

    /**
     * The canvas label of a node with an operation and a name TypedInput, unless it has a name of
     * its own: "get model m1", "list models", "msg.operation database env.DB", "agent a1 completions".
     */
    function operationLabel(node, defaultOp, noun, plural, nameField) {
        if (node.name) { return node.name; }
        var op = node.operation || defaultOp;
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
        sqlEditors: sqlEditors,
        closeSqlEditors: closeSqlEditors,
        catalogue: catalogue,
        fillMissingDefaults: fillMissingDefaults,
        wholeNumber: wholeNumber,
        oneOf: oneOf,
        blankOrJsonObject: blankOrJsonObject,
        optionalJsonType: optionalJsonType,
        namePicker: namePicker,
        literalValue: literalValue,
        resourceNode: resourceNode,
        operationLabel: operationLabel,
        FROM_MSG_AND_CONTEXT: FROM_MSG_AND_CONTEXT,
        statusValues: statusValues
    };
})(window);
