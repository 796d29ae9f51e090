"""The panels' stylesheet, sent once with each panel's header."""

from __future__ import annotations

__all__ = ["STYLE"]

#: The panels' look. Every colour is one of JupyterLab's theme variables (``--jp-*``), so the
#: panels follow the Light, Dark and high-contrast themes; text is always a font colour on a
#: layout colour, and the meaning of a line (success, error, warning) is carried by a coloured
#: bar and a mark beside it, never by coloured text alone.
STYLE = """
<style>
.chatops-console, .chatops-panel { font-family: var(--jp-ui-font-family);
  color: var(--jp-ui-font-color1); }
.chatops-panel { max-width: 1360px; }
.jupyter-widgets.widget-tab.chatops-console-tabs > .lm-TabBar .lm-TabBar-tab {
  flex: 0 0 auto; max-width: none; }
.chatops-panel .chatops-who { padding: 6px 10px; background: var(--jp-layout-color2);
  border-left: 4px solid var(--jp-success-color1); border-radius: 3px; margin-bottom: 6px; }
.chatops-panel .chatops-readonly { padding: 6px 10px; background: var(--jp-layout-color2);
  color: var(--jp-ui-font-color1); border-left: 4px solid var(--jp-warn-color1);
  border-radius: 3px; }
.chatops-outcome-ok, .chatops-outcome-error, .chatops-outcome-info, .chatops-outcome-warning {
  display: block; padding: 4px 10px; margin: 2px 0; border-radius: 3px;
  background: var(--jp-layout-color2); color: var(--jp-ui-font-color1); }
.chatops-outcome-ok { border-left: 4px solid var(--jp-success-color1); }
.chatops-outcome-error { border-left: 4px solid var(--jp-error-color1); font-weight: 600; }
.chatops-outcome-warning { border-left: 4px solid var(--jp-warn-color1); }
.chatops-outcome-info { border-left: 4px solid var(--jp-info-color1); }
.chatops-field-error { color: var(--jp-ui-font-color0); font-size: 12px; font-weight: 600;
  border-left: 3px solid var(--jp-error-color1); padding-left: 6px; }
.chatops-field-hint { color: var(--jp-ui-font-color2); font-size: 12px; }
table.chatops-table { border-collapse: collapse; font-size: 12.5px; margin: 4px 0;
  color: var(--jp-ui-font-color1); }
table.chatops-table th { background: var(--jp-layout-color2); text-align: left;
  padding: 3px 8px; border-bottom: 1px solid var(--jp-border-color1); }
table.chatops-table td { padding: 2px 8px; border-bottom: 1px solid var(--jp-border-color2);
  vertical-align: top; }
table.chatops-table tr.chatops-row-problem td:first-child {
  box-shadow: inset 3px 0 0 var(--jp-error-color1); }
.chatops-grid { color: var(--jp-ui-font-color1); font-size: 12.5px; max-width: 100%;
  min-width: 0; overflow-x: auto; }
.chatops-grid .dt-container { color: var(--jp-ui-font-color1); }
.chatops-grid .dt-container :is(.dt-search input, .dt-length select) {
  background: var(--jp-input-background);
  color: var(--jp-ui-font-color1); border: 1px solid var(--jp-border-color1); }
.chatops-grid .dt-container :is(.dt-info, .dt-length label, .dt-search label, .dt-length,
  .dt-search) { color: var(--jp-ui-font-color1); }
html .chatops-grid div.dt-container .dt-paging .dt-paging-button,
html .chatops-grid div.dt-container .dt-paging .dt-paging-button:hover {
  color: var(--jp-ui-font-color1) !important; background: var(--jp-layout-color1) !important;
  border: 1px solid var(--jp-border-color2) !important; }
html .chatops-grid div.dt-container .dt-paging .dt-paging-button.current {
  background: var(--jp-layout-color3) !important; font-weight: 600; }
html .chatops-grid div.dt-container .dt-paging .dt-paging-button.disabled,
html .chatops-grid div.dt-container .dt-paging .dt-paging-button.disabled:hover {
  color: var(--jp-ui-font-color2) !important; background: var(--jp-layout-color1) !important; }
.chatops-grid table.dataTable { color: var(--jp-ui-font-color1); }
.chatops-grid table.dataTable :is(thead th, thead td) { background: var(--jp-layout-color2);
  color: var(--jp-ui-font-color0); text-align: left; border-bottom: 1px solid
  var(--jp-border-color1); }
.chatops-grid table.dataTable > tbody > tr, .chatops-grid table.dataTable > tbody > tr > * {
  background-color: var(--jp-layout-color0); color: var(--jp-ui-font-color1);
  box-shadow: none !important; vertical-align: top; text-align: left; }
.chatops-grid table.dataTable.cell-border > tbody > tr > * { border-top: 1px solid
  var(--jp-border-color2); border-right: 1px solid var(--jp-border-color2); }
.chatops-grid table.dataTable > tbody > tr:hover > * { background-color: var(--jp-layout-color2); }
.chatops-grid table.dataTable > tbody > tr.selected > * {
  background-color: var(--jp-layout-color3) !important; color: var(--jp-ui-font-color0) !important;
  box-shadow: inset 0 0 0 1px var(--jp-brand-color1) !important; }
.chatops-grid table.dataTable > tbody > tr:has(.chatops-row-problem) > td:first-child {
  box-shadow: inset 4px 0 0 var(--jp-error-color1) !important; font-weight: 600; }
.chatops-grid .chatops-row-problem::before { content: "⚠ "; color: var(--jp-ui-font-color0); }
/* lines break between words only (never "Engineeri ng"); a table wider than its column scrolls
   sideways in its own frame, and only a word longer than a whole cell is broken */
.chatops-grid table.dataTable td { white-space: normal; overflow-wrap: break-word;
  word-break: normal; max-width: 420px; }
/* the groups list has no long addresses: lines break only between words (no "role:me mbers") */
.chatops-groups-table .chatops-grid table.dataTable :is(td, th) { overflow-wrap: normal;
  word-break: normal; }
/* TableView.whole_words: no word cut either; addresses break after "@", "/", "." (address_cell) */
.chatops-whole-words .chatops-grid table.dataTable :is(td, th) { overflow-wrap: normal;
  word-break: normal; }
.chatops-whole-words table.dataTable thead > tr > th:is(.dt-orderable-asc,
  .dt-orderable-desc, .dt-ordering-asc, .dt-ordering-desc) { padding-right: 14px; }
.chatops-whole-words table.dataTable thead > tr > th span.dt-column-order { right: 1px; }
/* ... and the groups list's columns fit the list's column beside JupyterLab's open file browser: the sort
   arrows take 14px of a header instead of 30px */
.chatops-groups-table table.dataTable thead > tr > th:is(.dt-orderable-asc, .dt-orderable-desc,
  .dt-ordering-asc, .dt-ordering-desc) { padding-right: 14px; }
.chatops-groups-table table.dataTable thead > tr > th span.dt-column-order { right: 1px; }
/* the count column takes no more width than its header needs; the names get the rest */
.chatops-groups-table table.dataTable tr > :nth-child(2) { width: 1%; }
.chatops-grid .dt-column-order::before, .chatops-grid .dt-column-order::after {
  color: var(--jp-ui-font-color1); }
.chatops-panel button.jupyter-button { width: auto; min-width: 120px; padding: 0 12px;
  align-self: flex-start; }
:is(.chatops-console, .chatops-panel) .jupyter-button:is(.mod-primary, .mod-success,
  .mod-danger, .mod-warning, .mod-info), :is(.chatops-console, .chatops-panel)
  .jupyter-button:is(.mod-primary, .mod-success, .mod-danger, .mod-warning, .mod-info):hover {
  background-color: var(--jp-layout-color2); color: var(--jp-ui-font-color1); }
:is(.chatops-console, .chatops-panel) .jupyter-button.mod-primary {
  box-shadow: inset 4px 0 0 var(--jp-brand-color1); }
:is(.chatops-console, .chatops-panel) .jupyter-button.mod-success {
  box-shadow: inset 4px 0 0 var(--jp-success-color1); }
:is(.chatops-console, .chatops-panel) .jupyter-button.mod-danger {
  box-shadow: inset 4px 0 0 var(--jp-error-color1); }
:is(.chatops-console, .chatops-panel) .jupyter-button.mod-warning {
  box-shadow: inset 4px 0 0 var(--jp-warn-color1); }
.chatops-nobreak { white-space: nowrap; }
.chatops-code { font-family: var(--jp-code-font-family); font-size: 12px; color: inherit;
  background: inherit; }
.chatops-muted { color: var(--jp-ui-font-color2); }
.chatops-section { font-weight: 600; margin-top: 8px; color: var(--jp-ui-font-color0); }
.chatops-check { padding: 1px 0 1px 8px; margin: 1px 0; color: var(--jp-ui-font-color1); }
.chatops-check-ok { border-left: 3px solid var(--jp-success-color1); }
.chatops-check-problem { border-left: 3px solid var(--jp-error-color1); font-weight: 600; }
.chatops-check-warning { border-left: 3px solid var(--jp-warn-color1); }
.chatops-check-info { border-left: 3px solid var(--jp-info-color1); }
.chatops-panel .widget-html-content, .chatops-panel .widget-label { color: inherit; }
.chatops-console-title { margin: 4px 0; color: var(--jp-ui-font-color0); }
.chatops-markdown p { margin: 0 0 4px 0; }
.chatops-markdown a { color: var(--jp-content-link-color); }
.chatops-panel :is(.jupyter-widget-Collapse-header, .lm-Collapse-header, .p-Collapse-header) {
  color: var(--jp-ui-font-color1); background-color: var(--jp-layout-color2); }
.chatops-columns .widget-vbox > * { flex-shrink: 0; }
.chatops-columns .widget-hbox > * { min-width: 0; }
.chatops-columns .widget-hbox { flex-wrap: wrap; }
.chatops-columns :is(.widget-text, .widget-textarea, .widget-dropdown, .widget-select-multiple,
  .widget-select, .widget-upload) { max-width: 100%; min-width: 0; }
.chatops-columns :is(input, textarea, select) { min-width: 0; }
.chatops-panel .chatops-table-html { overflow-x: auto; max-width: 100%; min-width: 0; }
.chatops-fold .chatops-table-title { display: none; }
.chatops-feedback { margin: 2px 0 6px 0; }
.chatops-panel details.chatops-details > summary { cursor: pointer; font-weight: 600; }
</style>
"""
