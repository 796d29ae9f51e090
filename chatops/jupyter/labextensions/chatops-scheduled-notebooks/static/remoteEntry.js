/*
 * chatops: jupyter-scheduler's "Create a notebook job" form lists the notebook's parameters
 * (its cell tagged "parameters") with their defaults, as the scheduler will write them into the
 * notebook (`name = value`, Python source). Parameters whose default is None (the audit suite's
 * per-audit parameters: each audit's own default) are left out; Add parameter adds them.
 *
 * A JupyterLab federated extension written by hand (no bundler): it needs no shared module, only
 * the application, so it sets window._JUPYTERLAB[name] as a built extension's entry does.
 */
(function () {
  "use strict";
  var NAME = "chatops-scheduled-notebooks";
  var COMMAND = "scheduling:create-from-notebook";
  // name, an optional annotation, "=", the value; a "  # help" comment after it is left out
  var LINE = /^([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=]*)?=\s*(.*)$/;

  function parse(line) {
    var found = LINE.exec(line.trim());
    if (!found) return null;
    var value = found[2].split(/\s{2,}#/)[0].trim();
    if (value === "" || value === "None") return null;
    return { name: found[1], value: value };
  }

  function parametersOf(panel) {
    var model = panel && panel.content && panel.content.model;
    if (!model || !model.cells) return [];
    for (var i = 0; i < model.cells.length; i++) {
      var cell = model.cells.get(i);
      var tags = cell.getMetadata ? cell.getMetadata("tags") : null;
      if (cell.type === "code" && Array.isArray(tags) && tags.indexOf("parameters") >= 0) {
        return cell.sharedModel.getSource().split("\n").map(parse).filter(Boolean);
      }
    }
    return [];
  }

  function widgets(app) {
    var found = [];
    var all = app.shell.widgets("main");
    for (var w = all.next(); w && !w.done && w.value !== undefined; w = all.next()) {
      found.push(w.value);
    }
    return found;
  }

  // The form sets its default environment once the scheduler has listed them, from the model it
  // had: the parameters are given again until the form's model has its environment too.
  function fill(app) {
    var all = widgets(app);
    // the Notebook Jobs panel: a main area widget whose content holds the scheduler's model
    var models = all
      .map(function (w) {
        return w.content && w.content.model;
      })
      .filter(function (m) {
        return m && "createJobModel" in m;
      });
    models.forEach(function (model) {
      var job = model.createJobModel;
      if (!job || (job.parameters && job.parameters.length)) return;
      var notebook = all.filter(function (n) {
        return n.context && n.context.path === job.inputFile;
      })[0];
      var params = parametersOf(notebook);
      if (!params.length) return;
      var key = job.key;
      var give = function () {
        var now = model.createJobModel;
        if (!now || now.key !== key) {
          model.stateChanged.disconnect(give);
          return;
        }
        if (!now.parameters || !now.parameters.length) {
          model.createJobModel = Object.assign({}, now, { parameters: params.slice() });
        } else if (now.environment) {
          model.stateChanged.disconnect(give);
        }
      };
      model.stateChanged.connect(give);
      give();
    });
  }

  var plugin = {
    id: NAME + ":form-parameters",
    description: "Lists a notebook's parameters with their defaults in the Create a notebook job form.",
    autoStart: true,
    requires: [],
    activate: function (app) {
      app.commands.commandExecuted.connect(function (_, args) {
        if (args.id !== COMMAND) return;
        Promise.resolve(args.result).then(function () {
          fill(app);
        });
      });
    },
  };

  var scope = (window._JUPYTERLAB = window._JUPYTERLAB || {});
  scope[NAME] = {
    init: function () {
      return Promise.resolve();
    },
    get: function (module) {
      if (module !== "./extension") {
        return Promise.reject(new Error(NAME + " has no module " + module));
      }
      return Promise.resolve(function () {
        return { __esModule: true, default: [plugin] };
      });
    },
  };
})();
