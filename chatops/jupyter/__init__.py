"""chatops in Jupyter: the launchers and what they serve.

- :mod:`.lab`: ``chatops lab``, JupyterLab on the chatops notebooks; :mod:`.lab_ready`, the
  server extension that runs the console notebook before the page opens;
- :mod:`.console_page`: ``chatops console``, the admin console as a Voila page;
- :mod:`.kernels`: the kernels the audit notebooks run in;
- :mod:`.notebook_html`: a notebook as one self-contained HTML file (``nbconvert --to
  chatops_html``);
- ``templates/``: the console page's Voila template and ``chatops_html``'s nbconvert template.

Nothing here is imported by the rest of chatops's library code but the audit runner (kernels).
"""
