"""The report's HTML template (Jinja2): inline CSS, no script, no external URL. A string, so a wheel has it."""

TEMPLATE = r"""{% macro figure(f) %}
  <figure class="figure" id="{{ f.id }}" data-figure="{{ f.id }}">
    {{ f.svg|safe }}
    <figcaption><strong id="{{ f.id }}-title">{{ f.title }}.</strong> {{ f.caption }}</figcaption>
  </figure>
{% endmacro %}
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{ csp }}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="compeval {{ version }}">
<title>{{ title }}</title>
<style>
:root { --fg:#1d1d1f; --muted:#666; --line:#e3e3e3; --accent:#0072B2; --pub:#8a8a8a; --bg-alt:#f7f7f8; }
* { box-sizing: border-box; }
body { margin:0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: var(--fg); background:#fff; }
header.top { padding: 22px 32px 14px; border-bottom: 1px solid var(--line); background: var(--bg-alt); }
header.top h1 { margin: 0 0 4px; font-size: 24px; }
.meta { color: var(--muted); font-size: 12.5px; }
nav.toc { padding: 8px 32px; border-bottom: 1px solid var(--line); font-size: 13px; position: sticky; top: 0;
          background: rgba(255,255,255,.96); z-index: 2; }
nav.toc a { color: var(--accent); text-decoration: none; margin-right: 14px; white-space: nowrap; }
main { max-width: 1320px; margin: 0 auto; padding: 8px 32px 40px; }
section { margin-top: 28px; }
section > h2 { font-size: 20px; border-bottom: 2px solid var(--fg); padding-bottom: 4px; margin-bottom: 8px; }
h3 { font-size: 15.5px; margin: 18px 0 6px; }
p.intro { max-width: 980px; color: #333; margin: 4px 0 10px; }
.scroll { overflow-x: auto; }
.boards { display: flex; flex-wrap: wrap; gap: 4px 36px; align-items: flex-start; }
.board-block { max-width: 100%; }
table { border-collapse: collapse; font-size: 12.5px; margin: 6px 0 4px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--bg-alt); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.board th.task { text-align: center; min-width: 80px; }
table.board th, table.board td { padding: 4px 6px; }  /* ten probing columns fit 1,400 px */
table.board th .metric { display:block; font-weight: 400; color: var(--muted); font-size: 11px; }
#table-paired .options { display:block; color: var(--muted); font-size: 10.5px; font-style: italic; }
#table-paired td.note { max-width: 240px; }
table.board th .options { display:block; font-weight: 400; color: var(--muted); font-size: 10.5px; font-style: italic;
                          max-width: 220px; margin: 0 auto; }
table.board td { text-align: center; font-variant-numeric: tabular-nums; }
table.board td.model { text-align: left; white-space: nowrap; font-weight: 600; }
table.board td .ci, section.suite td .ci { display: block; color: var(--muted); font-size: 10.5px; }
table.board td.best { font-weight: 700; }
table.board tr.published td { color: var(--pub); font-style: italic; }
table.board tr.published td.model { font-weight: 400; white-space: normal; min-width: 160px; }
tr.separator td { background: var(--bg-alt); color: var(--muted); font-size: 11px; text-align: left !important;
                  font-style: normal !important; }
.badge { display:inline-block; font-size: 10px; font-style: normal; border: 1px solid var(--pub); color: var(--pub);
         border-radius: 3px; padding: 0 4px; margin-left: 5px; vertical-align: 1px; }
td.published { color: var(--pub); font-style: italic; }
.caption { color: var(--muted); font-size: 12px; max-width: 980px; }
figure.figure { margin: 14px 0 22px; }
figure.figure svg { max-width: 100%; height: auto; display: block; }
figure.figure figcaption { font-size: 12.5px; color: #444; max-width: 980px; margin-top: 4px; }
figure.figure figcaption strong { color: var(--fg); }
.sig { color: var(--accent); font-weight: 600; }
.nosig { color: var(--muted); }
.note { font-size: 12px; color: var(--muted); }
.warn { color: #a33; }
details { margin: 6px 0; border: 1px solid var(--line); border-radius: 4px; padding: 4px 10px; }
details summary { cursor: pointer; font-weight: 600; }
pre.config { font-size: 11.5px; background: var(--bg-alt); padding: 8px; overflow-x: auto; max-height: 260px; }
footer { color: var(--muted); font-size: 12px; padding: 16px 32px; border-top: 1px solid var(--line); }
</style>
</head>
<body>
<header class="top">
  <h1>{{ title }}</h1>
  <div class="meta">{{ n_results }} results · {{ models|length }} model{{ "s" if models|length != 1 }} ({{ models|join(", ") }})
    · from <code>{{ results_dir }}</code> · built {{ generated }} by compeval {{ version }}</div>
</header>
<nav class="toc" aria-label="contents">
  <a href="#leaderboard">Leaderboard</a>
  {% for s in sections %}<a href="#{{ s.id }}">{{ s.title }}</a>{% endfor %}
  <a href="#paired">Paired comparisons</a>
  <a href="#provenance">Provenance</a>
</nav>
<main>
<section id="leaderboard">
  <h2>Leaderboard</h2>
  <p class="intro">Main score of every task with its 95% bootstrap interval (the interval each task computes; hover a
    number for what produced it). Bold: the best model on that task among those whose interval clears chance
    (random vectors' score where they ran, else the metric's chance level; random vectors and lemma overlap are
    references, never bold); <strong>≈</strong> marks a best model that a paired
    test cannot tell apart from the runner-up (p ≥ 0.05, see <a href="#paired">paired comparisons</a>). Grey italic rows
    marked <span class="badge">published</span> are figures from the papers, transcribed from the method specs and
    <em>not computed here</em>; hover them for the citation.{% if not_ranked %} Model-independent tasks
    ({{ not_ranked|join(", ") }}) appear in their section, not here.{% endif %}</p>
  {% if headline_fig %}
{{ figure(headline_fig) -}}
  {% endif %}
  <div class="boards">
  {% for t in leaderboard %}
  <div class="board-block">
  <h3>{{ t.suite }}</h3>
  <div class="scroll">
  <table class="board" id="{{ t.id }}">
    <thead><tr><th>model</th>
      {% for h in t.header %}<th class="task">{{ h.task }}{% if h.options %}<span class="options">{{ h.options }}</span>{% endif %}<span class="metric">{{ h.metric }}</span></th>{% endfor %}
    </tr></thead>
    <tbody>
    {% for r in t.rows if not r.published %}
      <tr class="computed">
        <td class="model">{{ r.model }}</td>
        {% for c in r.cells %}<td class="{{ c.cls }}" title="{{ c.title }}">{{ c.text }}{% if c.sub %}<span class="ci">{{ c.sub }}</span>{% endif %}</td>{% endfor %}
      </tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  {% if t.note %}<p class="caption headline-note">{{ t.note }}</p>{% endif %}
  {% set pub = t.rows|selectattr("published")|list %}
  {% if pub %}
  <details class="published-rows"><summary>{{ pub|length }} published reference figure{{ 's' if pub|length != 1 }} (not computed here)</summary>
  <div class="scroll">
  <table class="board">
    <thead><tr><th>model</th>
      {% for h in t.header %}<th class="task">{{ h.task }}<span class="metric">{{ h.metric }}</span></th>{% endfor %}
    </tr></thead>
    <tbody>
    {% for r in pub %}
      <tr class="published">
        <td class="model">{{ r.model }}<span class="badge">published</span></td>
        {% for c in r.cells %}<td class="{{ c.cls }}" title="{{ c.title }}">{{ c.text }}</td>{% endfor %}
      </tr>
    {% endfor %}
    </tbody>
  </table>
  </div>
  </details>
  {% endif %}
  </div>
  {% endfor %}
  </div>
  {% if unknown_suites %}<p class="note">Suites without a report section (leaderboard only): {{ unknown_suites|join(", ") }}.</p>{% endif %}
  {% if not_run %}
  <div id="not-run"><h3>Not run ({{ not_run.values()|map("length")|sum }} task{{ "s" if not_run.values()|map("length")|sum != 1 }})</h3>
  <ul class="note">{% for reason, tasks in not_run.items() %}<li>{{ tasks|length }} {{ reason }}: {{ tasks|join(", ") }}</li>{% endfor %}</ul></div>
  {% endif %}
</section>

{% for s in sections %}
<section id="{{ s.id }}" class="suite" data-suite="{{ s.suite }}">
  <h2>{{ s.title }}</h2>
  {% if s.intro %}<p class="intro">{{ s.intro }}</p>{% endif %}
  {% for f in s.figures %}
{{ figure(f) -}}
  {% endfor %}
  {% for t in s.tables %}
  <h3>{{ t.caption }}</h3>
  <div class="scroll"><table id="{{ t.id }}">
    <thead><tr>{% for c in t.columns %}<th>{{ c }}</th>{% endfor %}</tr></thead>
    <tbody>{% for r in t.rows %}<tr>{% for c in r %}<td class="{{ c.cls }}" title="{{ c.title }}">{{ c.text }}{% if c.sub %}<span class="ci">{{ c.sub }}</span>{% endif %}</td>{% endfor %}</tr>{% endfor %}</tbody>
  </table></div>
  {% if t.published_rows %}
  <details class="published-rows"><summary>{{ t.published_rows|length }} published reference row{{ 's' if t.published_rows|length != 1 }} (not computed here)</summary>
  <div class="scroll"><table id="{{ t.id }}-published">
    <thead><tr>{% for c in t.columns %}<th>{{ c }}</th>{% endfor %}</tr></thead>
    <tbody>{% for r in t.published_rows %}<tr class="published">{% for c in r %}<td class="{{ c.cls }}" title="{{ c.title }}">{{ c.text }}</td>{% endfor %}</tr>{% endfor %}</tbody>
  </table></div>
  </details>
  {% endif %}
  {% if t.note %}<p class="caption">{{ t.note }}</p>{% endif %}
  {% endfor %}
  {% for n in s.notes %}<p class="note">{{ n }}</p>{% endfor %}
</section>
{% endfor %}

<section id="paired">
  <h2>Paired comparisons</h2>
  <p class="intro">For each task, the models at adjacent leaderboard ranks compared on the same items: the difference in
    main score (rank k − rank k+1) with a 95% paired bootstrap interval ({{ settings.n_resamples }} resamples of the items,
    or of their units where items come in minimal pairs, nouns or entity pairs), and the two-sided p-value of a paired
    permutation test ({{ settings.n_permutations }} random swaps of the two models' per-item values, exact enumeration
    when there are few units; seed {{ settings.seed }}). The score is recomputed from the per-item predictions, and
    checked against the stored one. p &lt; 0.05: the ranks can be told apart.</p>
  {% if paired_fig %}
{{ figure(paired_fig) -}}
  {% endif %}
  {% if comparisons %}
  <div class="scroll"><table id="table-paired">
    <thead><tr><th>suite</th><th>task</th><th>metric</th><th>rank k</th><th>rank k+1</th><th class="num">score k</th>
      <th class="num">score k+1</th><th class="num">Δ</th><th>95% interval</th><th class="num">p</th><th class="num">units</th>
      <th>verdict</th><th>notes</th></tr></thead>
    <tbody>
    {% for c in comparisons %}
    <tr>
      <td>{{ c.suite }}</td><td>{{ c.a.task_name }}{% if c|options %}<span class="options">{{ c|options }}</span>{% endif %}</td><td>{{ c.metric }}</td>
      <td>{{ c.rank_a }}. {{ c.a.model }}</td><td>{{ c.rank_a + 1 }}. {{ c.b.model }}</td>
      {% if c.result %}
      <td class="num">{{ c.result.score_a|fmt(4) }}</td><td class="num">{{ c.result.score_b|fmt(4) }}</td>
      <td class="num">{{ c.result.difference|fmt(4) }}</td><td>{{ c.result.ci_low|fmt_ci(c.result.ci_high, 4) }}</td>
      <td class="num">{{ c.result.p_value|pval }}{% if c.result.exact %}*{% endif %}</td>
      <td class="num">{{ c.result.n_units }}{% if c.result.n_units != c.result.n_items %} / {{ c.result.n_items }} items{% endif %}</td>
      <td>{% if c.result.significant() %}<span class="sig">distinguishable</span>{% else %}<span class="nosig">not distinguishable</span>{% endif %}</td>
      {% else %}
      <td class="num">{{ c.a.main.value|fmt(4) }}</td><td class="num">{{ c.b.main.value|fmt(4) }}</td>
      <td class="num">–</td><td></td><td class="num">–</td><td></td><td class="nosig">no paired test</td>
      {% endif %}
      <td class="note" title="{{ c.method }}{% if c.note %}&#10;{{ c.note }}{% endif %}">{% if c.recomputed_ok is sameas false %}<span class="warn">{{ c.note }}</span>{% elif c.recomputed_ok %}recomputed ✓{% if c.note %} (≈){% endif %}{% else %}{{ c.note }}{% endif %}</td>
    </tr>
    {% endfor %}
    </tbody>
  </table></div>
  <p class="caption">* exact: every swap pattern of the units enumerated. Units: what the bootstrap resamples and the
    permutation swaps (items, or minimal pairs, nouns, entity pairs). Hover the notes for what each per-item value is;
    (≈): recomputed from the predictions file within a rounding tolerance of the stored score.</p>
  {% else %}
  <p class="note">Only one model per task: nothing to compare.</p>
  {% endif %}
</section>

<section id="provenance">
  <h2>Provenance</h2>
  <p class="intro">What produced each number: the model configuration (its id changes with any setting that changes
    vectors), the task version and options, the data revision and whether every file's hash matched the pinned one
    (✓), the seed, and the software versions. The same facts appear on hover over each leaderboard number.</p>
  <h3>Software environments</h3>
  <div class="scroll"><table id="table-environments">
    <thead><tr><th>package</th>{% for env in environments %}<th>env {{ loop.index }}</th>{% endfor %}</tr></thead>
    <tbody>{% for k in env_keys %}<tr><td>{{ k }}</td>{% for env in environments %}<td>{{ env.get(k, "–") }}</td>{% endfor %}</tr>{% endfor %}</tbody>
  </table></div>
  <p class="caption">Each result names its environment in the <em>env</em> column below.</p>
  {% for p in provenance %}
  <details class="model-provenance">
    <summary>{{ p.model }} — {{ p.results|length }} results</summary>
    <pre class="config">{{ p.config }}</pre>
    <div class="scroll"><table>
      <thead><tr><th>task</th><th>suite</th><th>version</th><th>options</th><th>data (revision)</th><th>seed</th>
        <th>run (UTC)</th><th class="num">seconds</th><th class="num">items</th><th>predictions sha256</th><th>env</th></tr></thead>
      <tbody>{% for r in p.results %}<tr><td>{{ r.task }}</td><td>{{ r.suite }}</td><td>{{ r.version }}</td>
        <td>{{ r.params }}</td><td>{{ r.data }}</td><td>{{ r.seed }}</td><td>{{ r.started }}</td>
        <td class="num">{{ r.seconds }}</td><td class="num">{{ r.n_items }}</td><td><code>{{ r.sha }}</code></td>
        <td>{{ r.env }}</td></tr>{% endfor %}</tbody>
    </table></div>
  </details>
  {% endfor %}
  {% for n in notes %}<p class="note warn">{{ n }}</p>{% endfor %}
</section>
</main>
<footer>compeval {{ version }} · self-contained: every style and figure is inline, and a Content-Security-Policy
  forbids any network request.</footer>
</body>
</html>
"""
