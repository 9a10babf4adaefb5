<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de" sourcelanguage="en">
<context>
    <name>CanvasGraph</name>
    <message>
        <source>%1 nodes %2–%3</source>
        <translation>%1 Knoten %2–%3</translation>
    </message>
    <message>
        <source>%1 block %2 · %3</source>
        <translation>%1 Block %2 · %3</translation>
    </message>
    <message>
        <source>%1 prologue</source>
        <translation>%1 Prolog</translation>
    </message>
    <message>
        <source>input</source>
        <translation>Eingabe</translation>
    </message>
    <message>
        <source>output</source>
        <translation>Ausgabe</translation>
    </message>
    <message>
        <source>pointwise</source>
        <translation>elementweise</translation>
    </message>
    <message>
        <source>reduction</source>
        <translation>Reduktion</translation>
    </message>
    <message>
        <source>view</source>
        <translation>View</translation>
    </message>
    <message>
        <source>extern (matmul, conv)</source>
        <translation>extern (matmul, conv)</translation>
    </message>
    <message>
        <source>random</source>
        <translation>Zufall</translation>
    </message>
    <message>
        <source>higher-order</source>
        <translation>höherer Ordnung</translation>
    </message>
    <message>
        <source>creation</source>
        <translation>Erzeugung</translation>
    </message>
    <message>
        <source>other</source>
        <translation>sonstige</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>Vorwärts</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>Rückwärts</translation>
    </message>
    <message>
        <source>graph</source>
        <translation>Graph</translation>
    </message>
    <message>
        <source>symbolic scalar (SymInt)</source>
        <translation>symbolischer Skalar (SymInt)</translation>
    </message>
    <message>
        <source>%1 blocks %2–%3 · %4</source>
        <translation>%1 Blöcke %2–%3 · %4</translation>
    </message>
    <message>
        <source>%1 after block %2</source>
        <translation>%1 nach Block %2</translation>
    </message>
</context>
<context>
    <name>GraphLayout</name>
    <message>
        <source>Graphviz: no context</source>
        <translation>Graphviz: kein Kontext</translation>
    </message>
    <message>
        <source>Graphviz: the dot layout plugin is not available</source>
        <translation>Graphviz: das dot-Layout-Plugin ist nicht verfügbar</translation>
    </message>
    <message>
        <source>built without Graphviz</source>
        <translation>ohne Graphviz gebaut</translation>
    </message>
</context>
<context>
    <name>KernelReport</name>
    <message>
        <source> reduce dim %1</source>
        <translation> reduziert über Dim. %1</translation>
    </message>
    <message>
        <source>NVRTC compiled the module to PTX (compute_80) in %1 ms</source>
        <translation>NVRTC hat das Modul in %1 ms nach PTX (compute_80) übersetzt</translation>
    </message>
    <message>
        <source>CUDA source only: %1</source>
        <translation>Nur CUDA-Quelltext: %1</translation>
    </message>
    <message>
        <source>no CUDA source: %1</source>
        <translation>kein CUDA-Quelltext: %1</translation>
    </message>
</context>
<context>
    <name>NodeOverlay</name>
    <message>
        <source>numeric error (relative)</source>
        <translation>numerischer Fehler (relativ)</translation>
    </message>
    <message>
        <source>kernel time</source>
        <translation>Kernelzeit</translation>
    </message>
    <message>
        <source>saved for backward</source>
        <translation>für den Backward gespeichert</translation>
    </message>
    <message>
        <source>last changed by</source>
        <translation>zuletzt geändert von</translation>
    </message>
    <message>
        <source>cannot open: %1</source>
        <translation>kann nicht geöffnet werden: %1</translation>
    </message>
    <message>
        <source>not JSON at byte %1: %2</source>
        <translation>kein JSON bei Byte %1: %2</translation>
    </message>
    <message>
        <source>no &quot;steps&quot; array: not the output of fxray bench --json</source>
        <translation>kein &quot;steps&quot;-Array: keine Ausgabe von fxray bench --json</translation>
    </message>
    <message>
        <source>step %1 has no &quot;ms&quot; number or &quot;nodes&quot; list</source>
        <translation>Schritt %1 hat keine &quot;ms&quot;-Zahl oder keine &quot;nodes&quot;-Liste</translation>
    </message>
</context>
<context>
    <name>Panels</name>
    <message>
        <source>Passes</source>
        <translation>Durchläufe</translation>
    </message>
    <message>
        <source>Matches</source>
        <translation>Treffer</translation>
    </message>
    <message>
        <source>Inspector</source>
        <translation>Inspektor</translation>
    </message>
    <message>
        <source>Partition</source>
        <translation>Partitionierung</translation>
    </message>
    <message>
        <source>Code</source>
        <translation>Code</translation>
    </message>
    <message>
        <source>Diff</source>
        <translation>Diff</translation>
    </message>
    <message>
        <source>Kernels</source>
        <translation>Kernel</translation>
    </message>
    <message>
        <source>Minifier</source>
        <translation>Minimierer</translation>
    </message>
    <message>
        <source>Numerics</source>
        <translation>Numerik</translation>
    </message>
</context>
<context>
    <name>PartitionLanes</name>
    <message>
        <source>inputs</source>
        <translation>Eingaben</translation>
    </message>
    <message>
        <source>tangents</source>
        <translation>Tangenten</translation>
    </message>
    <message>
        <source>forward (outside layers)</source>
        <translation>Vorwärts (außerhalb der Schichten)</translation>
    </message>
    <message>
        <source>backward (outside layers)</source>
        <translation>Rückwärts (außerhalb der Schichten)</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>frame</source>
        <translation>Frame</translation>
    </message>
    <message>
        <source>graph nodes</source>
        <translation>Graphknoten</translation>
    </message>
    <message>
        <source>graph ops</source>
        <translation>Graph-Ops</translation>
    </message>
    <message>
        <source>guards</source>
        <translation>Guards</translation>
    </message>
    <message>
        <source>frame compile</source>
        <translation>Frame-Kompilierung</translation>
    </message>
    <message>
        <source>backend compile</source>
        <translation>Backend-Kompilierung</translation>
    </message>
    <message>
        <source>inductor compile</source>
        <translation>Inductor-Kompilierung</translation>
    </message>
    <message>
        <source>code generation</source>
        <translation>Codegenerierung</translation>
    </message>
    <message>
        <source>failure</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>reason</source>
        <translation>Grund</translation>
    </message>
    <message>
        <source>Nothing to export</source>
        <translation>Nichts zu exportieren</translation>
    </message>
    <message>
        <source>fxray graph</source>
        <translation>fxray-Graph</translation>
    </message>
    <message>
        <source>Cannot write %1</source>
        <translation>%1 kann nicht geschrieben werden</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>%1 kann nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>removed by this pass</source>
        <translation>von diesem Durchlauf entfernt</translation>
    </message>
    <message>
        <source>(no type)</source>
        <translation>(kein Typ)</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n node(s)) — double-click to collapse or expand</source>
        <translation>
            <numerusform>%1 (%n Knoten) — Doppelklick zum Ein- oder Ausklappen</numerusform>
            <numerusform>%1 (%n Knoten) — Doppelklick zum Ein- oder Ausklappen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>⊞ %1
%n node(s)</source>
        <translation>
            <numerusform>⊞ %1
%n Knoten</numerusform>
            <numerusform>⊞ %1
%n Knoten</numerusform>
        </translation>
    </message>
    <message>
        <source>⊟ %1 (%2)</source>
        <translation>⊟ %1 (%2)</translation>
    </message>
    <message>
        <source>Debugger for PyTorch graph compilers</source>
        <translation>Debugger für PyTorch-Graph-Compiler</translation>
    </message>
    <message>
        <source>Graph file or folder to open</source>
        <translation>Zu öffnende Graphdatei oder zu öffnender Ordner</translation>
    </message>
    <message>
        <source>Render the window to PNG and exit</source>
        <translation>Fenster als PNG rendern und beenden</translation>
    </message>
    <message>
        <source>Graph to show (index, id or stage)</source>
        <translation>Anzuzeigender Graph (Index, ID oder Stufe)</translation>
    </message>
    <message>
        <source>Pass to show (name or index; compiles first)</source>
        <translation>Anzuzeigender Durchlauf (Name oder Index; kompiliert zuerst)</translation>
    </message>
    <message>
        <source>Pipeline to compile (default joint)</source>
        <translation>Zu kompilierende Pipeline (Standard: joint)</translation>
    </message>
    <message>
        <source>Canvas colouring: canvas, diff or partition</source>
        <translation>Färbung der Zeichenfläche: canvas, diff oder partition</translation>
    </message>
    <message>
        <source>Node to select</source>
        <translation>Auszuwählender Knoten</translation>
    </message>
    <message>
        <source>Window size for the screenshot, WxH</source>
        <translation>Fenstergröße für den Screenshot, BxH</translation>
    </message>
    <message>
        <source>light or dark</source>
        <translation>light (hell) oder dark (dunkel)</translation>
    </message>
    <message>
        <source>Language for this run: en, de or zh_CN (default: the setting)</source>
        <translation>Sprache für diesen Start: en, de oder zh_CN (Standard: die Einstellung)</translation>
    </message>
    <message>
        <source>no translation for language &quot;%1&quot; (en, de or zh_CN)</source>
        <translation>keine Übersetzung für die Sprache „%1“ (en, de oder zh_CN)</translation>
    </message>
    <message>
        <source>--screenshot needs a FILE</source>
        <translation>--screenshot benötigt eine DATEI</translation>
    </message>
    <message>
        <source>no graph &quot;%1&quot; in %2</source>
        <translation>kein Graph „%1“ in %2</translation>
    </message>
    <message>
        <source>no pass &quot;%1&quot; in pipeline %2</source>
        <translation>kein Durchlauf „%1“ in Pipeline %2</translation>
    </message>
    <message>
        <source>unknown view &quot;%1&quot; (canvas, diff or partition)</source>
        <translation>unbekannte Ansicht „%1“ (canvas, diff oder partition)</translation>
    </message>
    <message>
        <source>layout did not finish</source>
        <translation>Layout wurde nicht fertig</translation>
    </message>
    <message>
        <source>cannot write %1</source>
        <translation>%1 kann nicht geschrieben werden</translation>
    </message>
    <message numerus="yes">
        <source>%1: %2 blocks of the same %n op(s) each (repeated layers) — click to expand or collapse</source>
        <translation>
            <numerusform>%1: %2 Blöcke mit derselben %n Operation (wiederholte Schichten) — Klick zum Aus- oder Einklappen</numerusform>
            <numerusform>%1: %2 Blöcke mit denselben %n Operationen (wiederholte Schichten) — Klick zum Aus- oder Einklappen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>⊞ %1
× %2 · %n node(s) each</source>
        <translation>
            <numerusform>⊞ %1
× %2 · je %n Knoten</numerusform>
            <numerusform>⊞ %1
× %2 · je %n Knoten</numerusform>
        </translation>
    </message>
    <message>
        <source>⊟ %1 (× %2)</source>
        <translation>⊟ %1 (× %2)</translation>
    </message>
    <message>
        <source>Frame:</source>
        <translation>Frame:</translation>
    </message>
    <message>
        <source>Failure</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>Graph breaks</source>
        <translation>Graph-Brüche</translation>
    </message>
    <message>
        <source>Restart reasons</source>
        <translation>Neustartgründe</translation>
    </message>
    <message>
        <source>Recompiled because</source>
        <translation>Neu kompiliert, weil</translation>
    </message>
    <message>
        <source>Guards</source>
        <translation>Guards</translation>
    </message>
    <message numerus="yes">
        <source>%n guard(s)</source>
        <translation>
            <numerusform>%n Guard</numerusform>
            <numerusform>%n Guards</numerusform>
        </translation>
    </message>
    <message>
        <source>no guard count logged</source>
        <translation>keine Guard-Anzahl protokolliert</translation>
    </message>
    <message>
        <source>Failed later:</source>
        <translation>Später fehlgeschlagen:</translation>
    </message>
    <message>
        <source>Symbols</source>
        <translation>Symbole</translation>
    </message>
    <message>
        <source>Stages</source>
        <translation>Stufen</translation>
    </message>
</context>
<context>
    <name>fxray::views::CodePanel</name>
    <message>
        <source>The FX code of the shown graph appears here.</source>
        <translation>Hier erscheint der FX-Code des angezeigten Graphen.</translation>
    </message>
</context>
<context>
    <name>fxray::views::CompilePicker</name>
    <message>
        <source>Compile / stage</source>
        <translation>Kompilierung / Stufe</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>(no compile id)</source>
        <translation>(keine Kompilierungs-ID)</translation>
    </message>
    <message>
        <source>compile %1</source>
        <translation>Kompilierung %1</translation>
    </message>
    <message numerus="yes">
        <source>%1
stage: %2
%n node(s)</source>
        <translation>
            <numerusform>%1
Stufe: %2
%n Knoten</numerusform>
            <numerusform>%1
Stufe: %2
%n Knoten</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>
%n unknown op(s)</source>
        <translation>
            <numerusform>
%n unbekannte Op</numerusform>
            <numerusform>
%n unbekannte Ops</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::CompileStoryPanel</name>
    <message>
        <source>&amp;Minify failing graph</source>
        <translation>Fehlschlagenden Graphen &amp;minimieren</translation>
    </message>
    <message>
        <source>&amp;Details</source>
        <translation>&amp;Details</translation>
    </message>
    <message>
        <source>&amp;Timings</source>
        <translation>&amp;Zeiten</translation>
    </message>
    <message>
        <source>&amp;Kernels</source>
        <translation>&amp;Kernels</translation>
    </message>
    <message>
        <source>Reading the compile story</source>
        <translation>Lese den Kompilierverlauf</translation>
    </message>
    <message numerus="yes">
        <source>%n compile(s): %1 · %2 distinct graph break(s)</source>
        <translation>
            <numerusform>%n Kompilierung: %1 · %2 verschiedene Graph-Brüche</numerusform>
            <numerusform>%n Kompilierungen: %1 · %2 verschiedene Graph-Brüche</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Kernels (%1)</source>
        <translation>&amp;Kernels (%1)</translation>
    </message>
    <message>
        <source>Failed on graph</source>
        <translation>Gescheitert an Graph</translation>
    </message>
    <message numerus="yes">
        <source>%n node(s), shown on the canvas</source>
        <translation>
            <numerusform>%n Knoten, auf der Zeichenfläche angezeigt</numerusform>
            <numerusform>%n Knoten, auf der Zeichenfläche angezeigt</numerusform>
        </translation>
    </message>
    <message>
        <source>Make the graph this compile failed on current and minify it against PyTorch (torch.compile with Inductor) when PyTorch is installed</source>
        <translation>Den Graphen, an dem diese Kompilierung scheiterte, zum aktuellen machen und ihn gegen PyTorch minimieren (torch.compile mit Inductor), wenn PyTorch installiert ist</translation>
    </message>
    <message>
        <source>Output &amp;code</source>
        <translation>Ausgabe&amp;code</translation>
    </message>
    <message>
        <source>output code %1</source>
        <translation>Ausgabecode %1</translation>
    </message>
    <message>
        <source>Output &amp;code (%1)</source>
        <translation>Ausgabe&amp;code (%1)</translation>
    </message>
    <message>
        <source>Checking for Python with PyTorch…</source>
        <translation>Suche nach Python mit PyTorch…</translation>
    </message>
    <message>
        <source>Checking for PyTorch</source>
        <translation>Suche nach PyTorch</translation>
    </message>
    <message>
        <source>Minifying against %1: torch.compile with Inductor, in the Minifier pane</source>
        <translation>Minimierung gegen %1: torch.compile mit Inductor, im Minimierer-Bereich</translation>
    </message>
    <message>
        <source>PyTorch is not available, so the graph cannot be minified against it: %1. The Minifier opens for another check.</source>
        <translation>PyTorch ist nicht verfügbar, daher kann der Graph nicht dagegen minimiert werden: %1. Der Minimierer öffnet sich für eine andere Prüfung.</translation>
    </message>
</context>
<context>
    <name>fxray::views::CompileTreeModel</name>
    <message>
        <source>frame %1</source>
        <translation>Frame %1</translation>
    </message>
    <message>
        <source>frame %1 · %2</source>
        <translation>Frame %1 · %2</translation>
    </message>
    <message>
        <source>compile %1</source>
        <translation>Kompilierung %1</translation>
    </message>
    <message>
        <source>compiled autograd %1 · </source>
        <translation>Compiled Autograd %1 · </translation>
    </message>
    <message>
        <source>rank %1 · </source>
        <translation>Rang %1 · </translation>
    </message>
    <message>
        <source>recompiled: %1</source>
        <translation>neu kompiliert: %1</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>Frame / attempt / stage</source>
        <translation>Frame / Versuch / Stufe</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>Warum</translation>
    </message>
</context>
<context>
    <name>fxray::views::DiffPanel</name>
    <message>
        <source>Comments</source>
        <translation>Kommentare</translation>
    </message>
    <message>
        <source>Include the # File: provenance comments in the diff</source>
        <translation>Die # File:-Herkunftskommentare in den Diff aufnehmen</translation>
    </message>
    <message>
        <source>Previous change</source>
        <translation>Vorherige Änderung</translation>
    </message>
    <message>
        <source>Next change</source>
        <translation>Nächste Änderung</translation>
    </message>
    <message>
        <source>The input graph: step to a pass to see what it changed.</source>
        <translation>Der Eingabegraph: zu einem Durchlauf gehen, um seine Änderungen zu sehen.</translation>
    </message>
    <message>
        <source> on %1</source>
        <translation> auf %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; failed and was undone: no change</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; schlug fehl und wurde rückgängig gemacht: keine Änderung</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; left the graph unchanged</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; ließ den Graphen unverändert</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;: &lt;span style=&apos;color:#2e7d32&apos;&gt;+%2&lt;/span&gt; &lt;span style=&apos;color:#c62828&apos;&gt;−%3&lt;/span&gt; lines, %4 → %5 nodes</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;: &lt;span style=&apos;color:#2e7d32&apos;&gt;+%2&lt;/span&gt; &lt;span style=&apos;color:#c62828&apos;&gt;−%3&lt;/span&gt; Zeilen, %4 → %5 Knoten</translation>
    </message>
</context>
<context>
    <name>fxray::views::Document</name>
    <message>
        <source>Loading %1</source>
        <translation>Lade %1</translation>
    </message>
    <message>
        <source>Compiling (%1)</source>
        <translation>Kompiliere (%1)</translation>
    </message>
    <message>
        <source>Partitioning (budget %1)</source>
        <translation>Partitioniere (Budget %1)</translation>
    </message>
    <message>
        <source>Nothing to save: no file is open</source>
        <translation>Nichts zu speichern: keine Datei geöffnet</translation>
    </message>
</context>
<context>
    <name>fxray::views::GraphCanvas</name>
    <message>
        <source>&amp;Fit to Window</source>
        <translation>An &amp;Fenster anpassen</translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation>Ver&amp;größern</translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation>Ver&amp;kleinern</translation>
    </message>
    <message>
        <source>&amp;Find Node...</source>
        <translation>Knoten &amp;suchen…</translation>
    </message>
    <message>
        <source>Find &amp;Next</source>
        <translation>&amp;Weitersuchen</translation>
    </message>
    <message>
        <source>Find &amp;Previous</source>
        <translation>&amp;Rückwärts suchen</translation>
    </message>
    <message>
        <source>&amp;Collapse All Clusters</source>
        <translation>Alle Cluster ein&amp;klappen</translation>
    </message>
    <message>
        <source>&amp;Expand All Clusters</source>
        <translation>Alle Cluster &amp;ausklappen</translation>
    </message>
    <message>
        <source>Colour by &amp;Category</source>
        <translation>Nach &amp;Kategorie färben</translation>
    </message>
    <message>
        <source>Colour by &amp;Diff</source>
        <translation>Nach &amp;Diff färben</translation>
    </message>
    <message>
        <source>Colour by &amp;Partition</source>
        <translation>Nach &amp;Partitionierung färben</translation>
    </message>
    <message>
        <source>Canvas</source>
        <translation>Zeichenfläche</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>Kategorie</translation>
    </message>
    <message>
        <source>Diff</source>
        <translation>Diff</translation>
    </message>
    <message>
        <source>Partition</source>
        <translation>Partitionierung</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>Einpassen</translation>
    </message>
    <message>
        <source>+</source>
        <translation>+</translation>
    </message>
    <message>
        <source>−</source>
        <translation>−</translation>
    </message>
    <message>
        <source>Collapse</source>
        <translation>Einklappen</translation>
    </message>
    <message>
        <source>Expand</source>
        <translation>Ausklappen</translation>
    </message>
    <message>
        <source>Find</source>
        <translation>Suchen</translation>
    </message>
    <message>
        <source>Find node by name, op or shape (F3 next, Shift+F3 previous, Esc closes)</source>
        <translation>Knoten nach Name, Op oder Form suchen (F3 weiter, Umschalt+F3 zurück, Esc schließt)</translation>
    </message>
    <message>
        <source>Close (Esc)</source>
        <translation>Schließen (Esc)</translation>
    </message>
    <message>
        <source>Find:</source>
        <translation>Suchen:</translation>
    </message>
    <message>
        <source>Close Find Bar</source>
        <translation>Suchleiste schließen</translation>
    </message>
    <message numerus="yes">
        <source>Laying out %n node(s)</source>
        <translation>
            <numerusform>Layout für %n Knoten</numerusform>
            <numerusform>Layout für %n Knoten</numerusform>
        </translation>
    </message>
    <message>
        <source>+%1 −%2 ~%3</source>
        <translation>+%1 −%2 ~%3</translation>
    </message>
    <message>
        <source>added</source>
        <translation>hinzugefügt</translation>
    </message>
    <message>
        <source>removed (ghost)</source>
        <translation>entfernt (Phantom)</translation>
    </message>
    <message>
        <source>rewritten</source>
        <translation>umgeschrieben</translation>
    </message>
    <message>
        <source>unchanged</source>
        <translation>unverändert</translation>
    </message>
    <message>
        <source>— no previous snapshot at this pass: step forward to see a diff</source>
        <translation>— kein vorheriger Schnappschuss bei diesem Durchlauf: weitergehen, um einen Diff zu sehen</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>Vorwärts</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>Rückwärts</translation>
    </message>
    <message>
        <source>saved (framed)</source>
        <translation>gespeichert (umrahmt)</translation>
    </message>
    <message>
        <source>recomputed (dashed)</source>
        <translation>neu berechnet (gestrichelt)</translation>
    </message>
    <message>
        <source>— partitioning…</source>
        <translation>— partitioniere…</translation>
    </message>
    <message>
        <source>no match</source>
        <translation>kein Treffer</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Unknown export format &quot;%1&quot; (use .svg, .png or .dot)</source>
        <translation>Unbekanntes Exportformat „%1“ (.svg, .png oder .dot verwenden)</translation>
    </message>
    <message>
        <source>Colour by &amp;Numeric Error</source>
        <translation>Nach &amp;numerischem Fehler färben</translation>
    </message>
    <message>
        <source>Numerics</source>
        <translation>Numerik</translation>
    </message>
    <message numerus="yes">
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n Knoten</numerusform>
            <numerusform>%n Knoten</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n cluster(s)</source>
        <translation>
            <numerusform>%n Cluster</numerusform>
            <numerusform>%n Cluster</numerusform>
        </translation>
    </message>
    <message>
        <source> · layout: %1 %2 ms</source>
        <translation> · Layout: %1 %2 ms</translation>
    </message>
    <message>
        <source>rel_err:</source>
        <translation>rel_err:</translation>
    </message>
    <message>
        <source>not compared</source>
        <translation>nicht verglichen</translation>
    </message>
    <message>
        <source>— run a comparison in the Numerics pane</source>
        <translation>— starten Sie einen Vergleich im Bereich Numerik</translation>
    </message>
    <message>
        <source>no value</source>
        <translation>kein Wert</translation>
    </message>
    <message>
        <source>· blocks: sum of their nodes</source>
        <translation>· Blöcke: Summe ihrer Knoten</translation>
    </message>
    <message>
        <source>· blocks: max of their nodes</source>
        <translation>· Blöcke: Maximum ihrer Knoten</translation>
    </message>
    <message>
        <source>No overlay</source>
        <translation>Keine Überlagerung</translation>
    </message>
    <message>
        <source>Saved bytes</source>
        <translation>Gespeicherte Bytes</translation>
    </message>
    <message>
        <source>Last changed by pass</source>
        <translation>Zuletzt geändert von Pass</translation>
    </message>
    <message>
        <source>Paint a value per node over the category colours; collapsed blocks show their nodes&apos; max or sum</source>
        <translation>Einen Wert pro Knoten über die Kategoriefarben legen; eingeklappte Blöcke zeigen Maximum oder Summe ihrer Knoten</translation>
    </message>
    <message>
        <source>Kernel time (fxray bench --json)…</source>
        <translation>Kernelzeit (fxray bench --json)…</translation>
    </message>
    <message>
        <source>Open fxray bench --json output</source>
        <translation>Ausgabe von fxray bench --json öffnen</translation>
    </message>
    <message>
        <source>JSON (*.json);;All files (*)</source>
        <translation>JSON (*.json);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>cut edges of activations, bundled per block: ✂ saved tensors · bytes</source>
        <translation>Schnittkanten der Aktivierungen, je Block gebündelt: ✂ gespeicherte Tensoren · Bytes</translation>
    </message>
</context>
<context>
    <name>fxray::views::GraphScene</name>
    <message numerus="yes">
        <source>%n input(s)</source>
        <translation>
            <numerusform>%n Eingabe</numerusform>
            <numerusform>%n Eingaben</numerusform>
        </translation>
    </message>
    <message>
        <source>used only in blocks below</source>
        <translation>nur in Blöcken darunter verwendet</translation>
    </message>
    <message numerus="yes">
        <source>Cut: %n saved tensor(s) into this block of the backward, %1
%2</source>
        <translation>
            <numerusform>Schnitt: %n gespeicherter Tensor in diesen Block des Backward, %1
%2</numerusform>
            <numerusform>Schnitt: %n gespeicherte Tensoren in diesen Block des Backward, %1
%2</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>✂ %n saved</source>
        <translation>
            <numerusform>✂ %n gespeichert</numerusform>
            <numerusform>✂ %n gespeichert</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The cut edges leaving this block: %n saved tensor(s) the backward reads</source>
        <translation>
            <numerusform>Die Schnittkanten aus diesem Block: %n gespeicherter Tensor, den der Backward liest</numerusform>
            <numerusform>Die Schnittkanten aus diesem Block: %n gespeicherte Tensoren, die der Backward liest</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 → %2, removed by this pass</source>
        <translation>%1 → %2, von diesem Pass entfernt</translation>
    </message>
</context>
<context>
    <name>fxray::views::InspectorPanel</name>
    <message>
        <source>Select a node to inspect it.</source>
        <translation>Einen Knoten auswählen, um ihn zu untersuchen.</translation>
    </message>
    <message>
        <source>%1 is not in the shown graph</source>
        <translation>%1 ist nicht im angezeigten Graphen</translation>
    </message>
    <message>
        <source>%1 (removed by this pass; as it was before)</source>
        <translation>%1 (von diesem Durchlauf entfernt; Zustand davor)</translation>
    </message>
    <message>
        <source> · first of %1 selected</source>
        <translation> · erster von %1 ausgewählten</translation>
    </message>
</context>
<context>
    <name>fxray::views::KernelArtifactModel</name>
    <message numerus="yes">
        <source>%1 (%n line(s))</source>
        <translation>
            <numerusform>%1 (%n Zeile)</numerusform>
            <numerusform>%1 (%n Zeilen)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 · %2 (%n line(s))</source>
        <translation>
            <numerusform>%1 · %2 (%n Zeile)</numerusform>
            <numerusform>%1 · %2 (%n Zeilen)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::KernelPanel</name>
    <message>
        <source>Find in code (Enter: next, Shift+Enter: previous)</source>
        <translation>Im Code suchen (Eingabe: weiter, Umschalt+Eingabe: zurück)</translation>
    </message>
    <message>
        <source>This file carries no generated kernel code (inductor_output_code, output_code.py).</source>
        <translation>Diese Datei enthält keinen generierten Kernel-Code (inductor_output_code, output_code.py).</translation>
    </message>
    <message>
        <source>not found</source>
        <translation>nicht gefunden</translation>
    </message>
    <message>
        <source>fxray kernels</source>
        <translation>fxray-Kernel</translation>
    </message>
    <message>
        <source>Inductor code</source>
        <translation>Inductor-Code</translation>
    </message>
    <message>
        <source>Compile</source>
        <translation>Kompilieren</translation>
    </message>
    <message>
        <source>Compile the shown graph with fxray&apos;s backends (lowering, fusion, LLVM, CUDA C++)</source>
        <translation>Den angezeigten Graphen mit den Backends von fxray kompilieren (Lowering, Fusion, LLVM, CUDA C++)</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>Kernel</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Iteration space</source>
        <translation>Iterationsraum</translation>
    </message>
    <message>
        <source>Fused nodes</source>
        <translation>Fusionierte Knoten</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Runs as</source>
        <translation>Läuft als</translation>
    </message>
    <message>
        <source>Kernels</source>
        <translation>Kernel</translation>
    </message>
    <message>
        <source>Group map</source>
        <translation>Gruppenzuordnung</translation>
    </message>
    <message>
        <source>Kernel IR</source>
        <translation>Kernel-IR</translation>
    </message>
    <message>
        <source>LLVM IR</source>
        <translation>LLVM-IR</translation>
    </message>
    <message>
        <source>Assembly</source>
        <translation>Assembler</translation>
    </message>
    <message>
        <source>CUDA C++</source>
        <translation>CUDA C++</translation>
    </message>
    <message>
        <source>Not compiled yet.</source>
        <translation>Noch nicht kompiliert.</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message numerus="yes">
        <source>Compiling %n node(s)...</source>
        <translation>
            <numerusform>Kompiliere %n Knoten...</numerusform>
            <numerusform>Kompiliere %n Knoten...</numerusform>
        </translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>Abgebrochen.</translation>
    </message>
    <message>
        <source>No graph.</source>
        <translation>Kein Graph.</translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s)</source>
        <translation>
            <numerusform>%n Kernel</numerusform>
            <numerusform>%n Kernel</numerusform>
        </translation>
    </message>
    <message>
        <source>compiled in %1 ms</source>
        <translation>in %1 ms kompiliert</translation>
    </message>
    <message>
        <source>LLVM for %1</source>
        <translation>LLVM für %1</translation>
    </message>
    <message>
        <source>this build has no CPU backend: no LLVM IR or assembly</source>
        <translation>dieser Build hat kein CPU-Backend: kein LLVM-IR und kein Assembler</translation>
    </message>
    <message>
        <source>Compile failed: %1</source>
        <translation>Kompilieren fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Select a kernel, or a node on the canvas.</source>
        <translation>Wählen Sie einen Kernel oder einen Knoten im Graphen.</translation>
    </message>
    <message>
        <source>This build has no CPU backend (LLVM).</source>
        <translation>Dieser Build hat kein CPU-Backend (LLVM).</translation>
    </message>
    <message numerus="yes">
        <source>%1 is computed in %n kernel(s)</source>
        <translation>
            <numerusform>%1 wird in %n Kernel berechnet</numerusform>
            <numerusform>%1 wird in %n Kerneln berechnet</numerusform>
        </translation>
    </message>
    <message>
        <source>checking the CUDA C++ with NVRTC...</source>
        <translation>prüfe den CUDA-C++-Code mit NVRTC...</translation>
    </message>
    <message>
        <source>%1 runs as %2 (%3): no generated kernel.</source>
        <translation>%1 läuft als %2 (%3): kein generierter Kernel.</translation>
    </message>
    <message>
        <source>%1 is not computed by a kernel.</source>
        <translation>%1 wird von keinem Kernel berechnet.</translation>
    </message>
    <message>
        <source>Compiling kernels</source>
        <translation>Kompiliere Kernel</translation>
    </message>
</context>
<context>
    <name>fxray::views::MainWindow</name>
    <message>
        <source>Sweep</source>
        <translation>Sweep</translation>
    </message>
    <message>
        <source>Sweep: %1 — %2</source>
        <translation>Sweep: %1 — %2</translation>
    </message>
    <message>
        <source>Sweep results %1: double-click a row to open its graph</source>
        <translation>Sweep-Ergebnisse %1: Doppelklick auf eine Zeile öffnet ihren Graphen</translation>
    </message>
    <message>
        <source>fxray</source>
        <translation>fxray</translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation>%1 geöffnet</translation>
    </message>
    <message>
        <source>Compiles</source>
        <translation>Kompilierungen</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;Open File...</source>
        <translation>Datei ö&amp;ffnen…</translation>
    </message>
    <message>
        <source>Open &amp;Folder...</source>
        <translation>&amp;Ordner öffnen…</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>&amp;Zuletzt geöffnet</translation>
    </message>
    <message>
        <source>Re&amp;load</source>
        <translation>&amp;Neu laden</translation>
    </message>
    <message>
        <source>&amp;Save Session</source>
        <translation>Sitzung &amp;speichern</translation>
    </message>
    <message>
        <source>Save Session &amp;As...</source>
        <translation>Sitzung speichern &amp;unter…</translation>
    </message>
    <message>
        <source>&amp;Export View</source>
        <translation>Ansicht &amp;exportieren</translation>
    </message>
    <message>
        <source>As &amp;SVG...</source>
        <translation>Als &amp;SVG…</translation>
    </message>
    <message>
        <source>As &amp;PNG...</source>
        <translation>Als &amp;PNG…</translation>
    </message>
    <message>
        <source>As &amp;DOT...</source>
        <translation>Als &amp;DOT…</translation>
    </message>
    <message>
        <source>&amp;Settings...</source>
        <translation>&amp;Einstellungen…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>&amp;Design</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>&amp;Hell</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>&amp;Dunkel</translation>
    </message>
    <message>
        <source>&amp;Panes</source>
        <translation>&amp;Bereiche</translation>
    </message>
    <message>
        <source>&amp;Reset Layout</source>
        <translation>Anordnung &amp;zurücksetzen</translation>
    </message>
    <message>
        <source>&amp;Compile</source>
        <translation>&amp;Kompilieren</translation>
    </message>
    <message>
        <source>Run &amp;%1 Pipeline</source>
        <translation>Pipeline &amp;%1 ausführen</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>&amp;Keyboard Shortcuts</source>
        <translation>&amp;Tastenkürzel</translation>
    </message>
    <message>
        <source>Keyboard Shortcuts</source>
        <translation>Tastenkürzel</translation>
    </message>
    <message>
        <source>&amp;About fxray</source>
        <translation>Ü&amp;ber fxray</translation>
    </message>
    <message>
        <source>About fxray</source>
        <translation>Über fxray</translation>
    </message>
    <message>
        <source>fxray %1: a debugger for PyTorch graph compilers.</source>
        <translation>fxray %1: ein Debugger für PyTorch-Graph-Compiler.</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>Bereit</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>&amp;Abbrechen</translation>
    </message>
    <message>
        <source>&amp;Clear List</source>
        <translation>Liste &amp;leeren</translation>
    </message>
    <message>
        <source>Open graph</source>
        <translation>Graph öffnen</translation>
    </message>
    <message>
        <source>Graphs (*.py *.log *.pt2 *.fxray *.txt *.json);;FX text (*.py);;TORCH_TRACE logs (*.log *.txt);;torch.export archives (*.pt2);;fxray sessions (*.fxray);;All files (*)</source>
        <translation>Graphen (*.py *.log *.pt2 *.fxray *.txt *.json);;FX-Text (*.py);;TORCH_TRACE-Protokolle (*.log *.txt);;torch.export-Archive (*.pt2);;fxray-Sitzungen (*.fxray);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Save session</source>
        <translation>Sitzung speichern</translation>
    </message>
    <message>
        <source>fxray sessions (*.fxray)</source>
        <translation>fxray-Sitzungen (*.fxray)</translation>
    </message>
    <message>
        <source>Session saved to %1</source>
        <translation>Sitzung in %1 gespeichert</translation>
    </message>
    <message>
        <source>Open folder (TORCH_TRACE, debug, to_folder output or sweep results)</source>
        <translation>Ordner öffnen (TORCH_TRACE, Debug-, to_folder-Ausgabe oder Sweep-Ergebnisse)</translation>
    </message>
    <message>
        <source>Loading %1...</source>
        <translation>Lade %1…</translation>
    </message>
    <message>
        <source>%1 [%2] - fxray</source>
        <translation>%1 [%2] - fxray</translation>
    </message>
    <message>
        <source>%1 - fxray</source>
        <translation>%1 - fxray</translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n node(s)</source>
        <translation>
            <numerusform>%1 · %n Knoten</numerusform>
            <numerusform>%1 · %n Knoten</numerusform>
        </translation>
    </message>
    <message>
        <source>Export view</source>
        <translation>Ansicht exportieren</translation>
    </message>
    <message>
        <source>%1 files (*.%2)</source>
        <translation>%1-Dateien (*.%2)</translation>
    </message>
    <message>
        <source>Exported %1</source>
        <translation>%1 exportiert</translation>
    </message>
    <message>
        <source>The language changes when fxray is restarted.</source>
        <translation>Die Sprache ändert sich beim nächsten Start von fxray.</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Abgebrochen</translation>
    </message>
    <message>
        <source>Compile story</source>
        <translation>Kompilierverlauf</translation>
    </message>
    <message>
        <source>Minifier: the failing graph is current; choose what counts as failing and run</source>
        <translation>Minimierer: der fehlschlagende Graph ist aktuell; wählen, was als Fehlschlag gilt, und starten</translation>
    </message>
    <message>
        <source>Learn: the bundled sample could not be unpacked to %1</source>
        <translation>Lernen: das mitgelieferte Beispiel konnte nicht nach %1 entpackt werden</translation>
    </message>
    <message>
        <source>Learn: compiling the sample failed</source>
        <translation>Lernen: das Kompilieren des Beispiels schlug fehl</translation>
    </message>
    <message>
        <source>Learn: a small attention model&apos;s joint graph, pass by pass. The explanation of each pass is beside the pass list; F8 steps to the next pass, Shift+F8 back.</source>
        <translation>Lernen: der Joint-Graph eines kleinen Attention-Modells, Pass für Pass. Die Erklärung jedes Passes steht neben der Pass-Liste; F8 geht zum nächsten Pass, Umschalt+F8 zurück.</translation>
    </message>
    <message>
        <source>Open a small attention model, compile it and step through the passes with their explanations</source>
        <translation>Ein kleines Attention-Modell öffnen, kompilieren und die Passes mit ihren Erklärungen durchgehen</translation>
    </message>
    <message>
        <source>Lear&amp;n: a Guided Compile</source>
        <translation>&amp;Lernen: eine geführte Kompilierung</translation>
    </message>
    <message>
        <source>Minifier: minifying the failing graph against PyTorch (torch.compile)</source>
        <translation>Minimierer: der fehlschlagende Graph wird gegen PyTorch (torch.compile) minimiert</translation>
    </message>
</context>
<context>
    <name>fxray::views::MatchModel</name>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message numerus="yes">
        <source>%n match(es)</source>
        <translation>
            <numerusform>%n Treffer</numerusform>
            <numerusform>%n Treffer</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n near-miss(es)</source>
        <translation>
            <numerusform>%n Beinahe-Treffer</numerusform>
            <numerusform>%n Beinahe-Treffer</numerusform>
        </translation>
    </message>
    <message>
        <source>match</source>
        <translation>Treffer</translation>
    </message>
    <message>
        <source>match at %1</source>
        <translation>Treffer bei %1</translation>
    </message>
    <message>
        <source>%1 → %2 nodes</source>
        <translation>%1 → %2 Knoten</translation>
    </message>
    <message>
        <source>%1 ⇒ %2</source>
        <translation>%1 ⇒ %2</translation>
    </message>
    <message>
        <source>near-miss at %1</source>
        <translation>Beinahe-Treffer bei %1</translation>
    </message>
    <message>
        <source>Matched: %1
Created: %2</source>
        <translation>Getroffen: %1
Erzeugt: %2</translation>
    </message>
    <message>
        <source>Rejected at %1: %2</source>
        <translation>Abgelehnt bei %1: %2</translation>
    </message>
    <message>
        <source>Pass / pattern / match</source>
        <translation>Durchlauf / Muster / Treffer</translation>
    </message>
    <message>
        <source>Count</source>
        <translation>Anzahl</translation>
    </message>
    <message>
        <source>Nodes / reason</source>
        <translation>Knoten / Grund</translation>
    </message>
</context>
<context>
    <name>fxray::views::MatchPanel</name>
    <message>
        <source>Select matched</source>
        <translation>Getroffene auswählen</translation>
    </message>
    <message>
        <source>Select replacement</source>
        <translation>Ersetzung auswählen</translation>
    </message>
    <message>
        <source>Select only the nodes the pattern matched</source>
        <translation>Nur die vom Muster getroffenen Knoten auswählen</translation>
    </message>
    <message>
        <source>Select only the nodes the replacement created</source>
        <translation>Nur die von der Ersetzung erzeugten Knoten auswählen</translation>
    </message>
    <message>
        <source>Compile the graph to see which patterns fire.</source>
        <translation>Den Graphen kompilieren, um zu sehen, welche Muster greifen.</translation>
    </message>
    <message>
        <source>No pattern matched or nearly matched in this run.</source>
        <translation>In diesem Lauf hat kein Muster getroffen oder beinahe getroffen.</translation>
    </message>
    <message>
        <source>Pattern %1 rejected the candidate at %2:
%3</source>
        <translation>Muster %1 lehnte den Kandidaten bei %2 ab:
%3</translation>
    </message>
    <message>
        <source>Pattern</source>
        <translation>Muster</translation>
    </message>
    <message numerus="yes">
        <source>Matched (%n node(s))</source>
        <translation>
            <numerusform>Getroffen (%n Knoten)</numerusform>
            <numerusform>Getroffen (%n Knoten)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Replacement (%n node(s))</source>
        <translation>
            <numerusform>Ersatz (%n Knoten)</numerusform>
            <numerusform>Ersatz (%n Knoten)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::MinifierPanel</name>
    <message>
        <source>Run</source>
        <translation>Starten</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Open result</source>
        <translation>Ergebnis öffnen</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>Exportieren…</translation>
    </message>
    <message>
        <source>Injected fault (scale an op&apos;s output)</source>
        <translation>Eingeschleuster Fehler (Ausgabe einer Op skalieren)</translation>
    </message>
    <message>
        <source>Accuracy: two executors disagree</source>
        <translation>Genauigkeit: zwei Ausführer sind uneins</translation>
    </message>
    <message>
        <source>A pass fails with a message</source>
        <translation>Ein Durchlauf schlägt mit einer Meldung fehl</translation>
    </message>
    <message>
        <source>A command exits 0</source>
        <translation>Ein Befehl endet mit 0</translation>
    </message>
    <message>
        <source>What makes a smaller graph still interesting: it must fail the same way</source>
        <translation>Was einen kleineren Graphen noch interessant macht: er muss auf dieselbe Weise fehlschlagen</translation>
    </message>
    <message>
        <source>The op whose output is scaled on the tested side (the clean reference executor is the other side)</source>
        <translation>Die Op, deren Ausgabe auf der getesteten Seite skaliert wird (die andere Seite ist der saubere Referenz-Ausführer)</translation>
    </message>
    <message>
        <source>Reference side vs tested side, judged like PyTorch&apos;s same(): ref is the fp32 reference executor, ref64 the same in fp64, cpu and cuda the compiled backends</source>
        <translation>Referenzseite gegen getestete Seite, beurteilt wie PyTorchs same(): ref ist der fp32-Referenz-Ausführer, ref64 derselbe in fp64, cpu und cuda die kompilierten Backends</translation>
    </message>
    <message>
        <source>regular expression the failure message must match (empty: any)</source>
        <translation>regulärer Ausdruck, dem die Fehlermeldung entsprechen muss (leer: beliebig)</translation>
    </message>
    <message>
        <source>shell command run in the candidate&apos;s folder; exit 0 = still failing</source>
        <translation>Shell-Befehl, der im Ordner des Kandidaten läuft; Exit 0 = schlägt weiterhin fehl</translation>
    </message>
    <message>
        <source>Queries run at once, each in its own process</source>
        <translation>Gleichzeitig laufende Abfragen, jede in einem eigenen Prozess</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>A query running longer is killed and counts as a hang</source>
        <translation>Eine länger laufende Abfrage wird beendet und zählt als Hänger</translation>
    </message>
    <message>
        <source>Op</source>
        <translation>Op</translation>
    </message>
    <message>
        <source>Scale</source>
        <translation>Faktor</translation>
    </message>
    <message>
        <source>Sides</source>
        <translation>Seiten</translation>
    </message>
    <message>
        <source>Pass</source>
        <translation>Durchlauf</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Meldung</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>Befehl</translation>
    </message>
    <message>
        <source>Load the minimized graph as the current file</source>
        <translation>Den minimierten Graphen als aktuelle Datei laden</translation>
    </message>
    <message>
        <source>Write minified.py, inputs/*.npy, repro.py, session.json and minified.fxray to a folder</source>
        <translation>minified.py, inputs/*.npy, repro.py, session.json und minified.fxray in einen Ordner schreiben</translation>
    </message>
    <message>
        <source>The smallest failing graph found so far appears here while the minifier runs.</source>
        <translation>Hier erscheint der kleinste bisher gefundene fehlschlagende Graph, während der Minimierer läuft.</translation>
    </message>
    <message>
        <source>Failure</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>Jobs</translation>
    </message>
    <message>
        <source>Timeout</source>
        <translation>Zeitlimit</translation>
    </message>
    <message>
        <source>Export the minified repro to</source>
        <translation>Die minimierte Reproduktion exportieren nach</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n node(s))</source>
        <translation>
            <numerusform>%1 (%n Knoten)</numerusform>
            <numerusform>%1 (%n Knoten)</numerusform>
        </translation>
    </message>
    <message>
        <source>Open a graph first.</source>
        <translation>Zuerst einen Graphen öffnen.</translation>
    </message>
    <message>
        <source>Choose the op to inject the fault into.</source>
        <translation>Die Op wählen, in die der Fehler eingeschleust wird.</translation>
    </message>
    <message>
        <source>Bad check: %1</source>
        <translation>Ungültige Prüfung: %1</translation>
    </message>
    <message>
        <source>Cannot find the fxray executable that runs the queries (set FXRAY_EXE).</source>
        <translation>Die fxray-Programmdatei, die die Abfragen ausführt, wurde nicht gefunden (FXRAY_EXE setzen).</translation>
    </message>
    <message>
        <source>The file does not carry the value of constant &apos;%1&apos;; minify it with `fxray minify --constants DIR`.</source>
        <translation>Die Datei enthält den Wert der Konstante &apos;%1&apos; nicht; mit `fxray minify --constants DIR` minimieren.</translation>
    </message>
    <message>
        <source>Starting: the first query checks that the graph shows the failure…</source>
        <translation>Start: die erste Abfrage prüft, dass der Graph den Fehler zeigt…</translation>
    </message>
    <message>
        <source>Cancelling: waiting for the queries in flight…</source>
        <translation>Breche ab: warte auf laufende Abfragen…</translation>
    </message>
    <message numerus="yes">
        <source>%1 nodes after %n query(s) (%2)</source>
        <translation>
            <numerusform>%1 Knoten nach %n Abfrage (%2)</numerusform>
            <numerusform>%1 Knoten nach %n Abfragen (%2)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n query(s) · %1 → %2 nodes · %3 s · %4</source>
        <translation>
            <numerusform>%n Abfrage · %1 → %2 Knoten · %3 s · %4</numerusform>
            <numerusform>%n Abfragen · %1 → %2 Knoten · %3 s · %4</numerusform>
        </translation>
    </message>
    <message>
        <source>Minify failed: %1</source>
        <translation>Minimierung fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Minify failed.</source>
        <translation>Minimierung fehlgeschlagen.</translation>
    </message>
    <message>
        <source>Cancelled before the failure was confirmed.</source>
        <translation>Abgebrochen, bevor der Fehler bestätigt wurde.</translation>
    </message>
    <message>
        <source>The graph does not show the failure, nothing to minify: %1</source>
        <translation>Der Graph zeigt den Fehler nicht, nichts zu minimieren: %1</translation>
    </message>
    <message numerus="yes">
        <source>%1 → %2 nodes in %n query(s) (%3 s)</source>
        <translation>
            <numerusform>%1 → %2 Knoten in %n Abfrage (%3 s)</numerusform>
            <numerusform>%1 → %2 Knoten in %n Abfragen (%3 s)</numerusform>
        </translation>
    </message>
    <message>
        <source>Cancelled; best so far: %1</source>
        <translation>Abgebrochen; bisher bestes Ergebnis: %1</translation>
    </message>
    <message>
        <source>Minified: %1</source>
        <translation>Minimiert: %1</translation>
    </message>
    <message>
        <source>Failure: %1</source>
        <translation>Fehler: %1</translation>
    </message>
    <message>
        <source>Bisection: %1</source>
        <translation>Bisektion: %1</translation>
    </message>
    <message>
        <source>Step: %1</source>
        <translation>Schritt: %1</translation>
    </message>
    <message>
        <source>Nothing to export: run the minifier first.</source>
        <translation>Nichts zu exportieren: zuerst den Minimierer ausführen.</translation>
    </message>
    <message>
        <source>Cannot create the folder %1.</source>
        <translation>Der Ordner %1 kann nicht angelegt werden.</translation>
    </message>
    <message>
        <source>Export failed: %1</source>
        <translation>Export fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Wrote %1: minified.py, inputs/, repro.py, session.json, minified.fxray</source>
        <translation>%1 geschrieben: minified.py, inputs/, repro.py, session.json, minified.fxray</translation>
    </message>
    <message>
        <source>The result&apos;s session file is missing: %1</source>
        <translation>Die Sitzungsdatei des Ergebnisses fehlt: %1</translation>
    </message>
    <message>
        <source>PyTorch&apos;s torch.compile fails the same way</source>
        <translation>torch.compile von PyTorch schlägt auf dieselbe Weise fehl</translation>
    </message>
    <message>
        <source>torch-compile[:BACKEND[@DEVICE]][:KEY=VALUE,...]: each candidate&apos;s repro.py runs under torch.compile in Python with PyTorch (FXRAY_PYTHON, else python3); KEY=VALUE patch torch._inductor.config</source>
        <translation>torch-compile[:BACKEND[@DEVICE]][:KEY=VALUE,...]: das repro.py jedes Kandidaten läuft unter torch.compile in einem Python mit PyTorch (FXRAY_PYTHON, sonst python3); KEY=VALUE setzt Werte in torch._inductor.config</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>Prüfung</translation>
    </message>
    <message>
        <source>The PyTorch check is written torch-compile[:BACKEND[@DEVICE]][:KEY=VALUE,...].</source>
        <translation>Die PyTorch-Prüfung wird als torch-compile[:BACKEND[@DEVICE]][:KEY=VALUE,...] geschrieben.</translation>
    </message>
</context>
<context>
    <name>fxray::views::Minimap</name>
    <message>
        <source>Overview: click or drag to move the view</source>
        <translation>Übersicht: klicken oder ziehen, um die Ansicht zu verschieben</translation>
    </message>
</context>
<context>
    <name>fxray::views::NodeInspectorModel</name>
    <message>
        <source>Node</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>kind</source>
        <translation>Art</translation>
    </message>
    <message>
        <source>target</source>
        <translation>Ziel</translation>
    </message>
    <message>
        <source>op</source>
        <translation>Op</translation>
    </message>
    <message>
        <source>category</source>
        <translation>Kategorie</translation>
    </message>
    <message>
        <source>Schema</source>
        <translation>Schema</translation>
    </message>
    <message>
        <source>%1 = %2</source>
        <translation>%1 = %2</translation>
    </message>
    <message>
        <source>returns</source>
        <translation>Rückgabe</translation>
    </message>
    <message>
        <source>(not in fxray&apos;s op registry)</source>
        <translation>(nicht in fxrays Op-Registry)</translation>
    </message>
    <message>
        <source>Arguments</source>
        <translation>Argumente</translation>
    </message>
    <message>
        <source>Keyword arguments</source>
        <translation>Schlüsselwortargumente</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>Ausgabe</translation>
    </message>
    <message>
        <source>dtype</source>
        <translation>dtype</translation>
    </message>
    <message>
        <source>shape</source>
        <translation>Form</translation>
    </message>
    <message>
        <source>strides</source>
        <translation>Strides</translation>
    </message>
    <message>
        <source>storage offset</source>
        <translation>Speicher-Offset</translation>
    </message>
    <message>
        <source>bytes</source>
        <translation>Bytes</translation>
    </message>
    <message numerus="yes">
        <source>tuple of %n</source>
        <translation>
            <numerusform>Tupel aus %n</numerusform>
            <numerusform>Tupel aus %n</numerusform>
        </translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>Eingaben</translation>
    </message>
    <message>
        <source>Users</source>
        <translation>Verwender</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>Quelle</translation>
    </message>
    <message>
        <source>comment</source>
        <translation>Kommentar</translation>
    </message>
    <message>
        <source>line in file</source>
        <translation>Zeile in der Datei</translation>
    </message>
    <message>
        <source>pass %1: %2</source>
        <translation>Durchlauf %1: %2</translation>
    </message>
    <message>
        <source> (later)</source>
        <translation> (später)</translation>
    </message>
    <message>
        <source>created (%1)</source>
        <translation>erzeugt (%1)</translation>
    </message>
    <message>
        <source>replaces %1</source>
        <translation>ersetzt %1</translation>
    </message>
    <message>
        <source>replaced by %1</source>
        <translation>ersetzt durch %1</translation>
    </message>
    <message>
        <source>erased</source>
        <translation>gelöscht</translation>
    </message>
    <message>
        <source> by pattern %1</source>
        <translation> durch Muster %1</translation>
    </message>
    <message>
        <source>Provenance</source>
        <translation>Herkunft</translation>
    </message>
    <message>
        <source>from the file</source>
        <translation>aus der Datei</translation>
    </message>
    <message>
        <source>Property</source>
        <translation>Eigenschaft</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Wert</translation>
    </message>
    <message>
        <source>expression</source>
        <translation>Ausdruck</translation>
    </message>
    <message>
        <source>symbols</source>
        <translation>Symbole</translation>
    </message>
    <message>
        <source>hints</source>
        <translation>Hinweise (Trace)</translation>
    </message>
</context>
<context>
    <name>fxray::views::NumericsModel</name>
    <message>
        <source>first node where the backends diverge</source>
        <translation>erster Knoten, an dem die Backends abweichen</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>ok</translation>
    </message>
    <message>
        <source>DIFFERS</source>
        <translation>WEICHT AB</translation>
    </message>
    <message>
        <source>rel_err %1, max_abs_err %2</source>
        <translation>rel_err %1, max_abs_err %2</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Op</source>
        <translation>Op</translation>
    </message>
    <message>
        <source>Agree</source>
        <translation>Übereinstimmung</translation>
    </message>
    <message>
        <source>rel_err %1</source>
        <translation>rel_err %1</translation>
    </message>
</context>
<context>
    <name>fxray::views::NumericsPanel</name>
    <message>
        <source>cpu</source>
        <translation>cpu</translation>
    </message>
    <message>
        <source>cuda</source>
        <translation>cuda</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>Vergleichen</translation>
    </message>
    <message>
        <source>fxray&apos;s CPU backend (LLVM), compared with the reference executor</source>
        <translation>CPU-Backend von fxray (LLVM), verglichen mit dem Referenz-Executor</translation>
    </message>
    <message>
        <source>fxray&apos;s CUDA backend, compared with the reference executor (needs an NVIDIA GPU)</source>
        <translation>CUDA-Backend von fxray, verglichen mit dem Referenz-Executor (braucht eine NVIDIA-GPU)</translation>
    </message>
    <message>
        <source>seed </source>
        <translation>Seed </translation>
    </message>
    <message>
        <source>Seed of the random inputs (used when the file has no recorded inputs)</source>
        <translation>Seed der Zufallseingaben (wenn die Datei keine aufgezeichneten Eingaben hat)</translation>
    </message>
    <message>
        <source>ref vs</source>
        <translation>ref gegen</translation>
    </message>
    <message>
        <source>The fxray executable was not found; set FXRAY_EXECUTABLE.</source>
        <translation>Das fxray-Programm wurde nicht gefunden; setzen Sie FXRAY_EXECUTABLE.</translation>
    </message>
    <message>
        <source>Compare the graph&apos;s values node by node on the chosen backends.</source>
        <translation>Die Werte des Graphen Knoten für Knoten auf den gewählten Backends vergleichen.</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Comparing on %1...</source>
        <translation>Vergleiche auf %1...</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>Abgebrochen.</translation>
    </message>
    <message>
        <source>Cannot start %1: %2</source>
        <translation>%1 kann nicht gestartet werden: %2</translation>
    </message>
    <message>
        <source>Not available: %1</source>
        <translation>Nicht verfügbar: %1</translation>
    </message>
    <message>
        <source>fxray compare crashed; the GUI is unaffected. %1</source>
        <translation>fxray compare ist abgestürzt; die Oberfläche ist nicht betroffen. %1</translation>
    </message>
    <message>
        <source>fxray compare failed (exit %1): %2</source>
        <translation>fxray compare fehlgeschlagen (Status %1): %2</translation>
    </message>
    <message>
        <source>Cannot read compare&apos;s output: %1</source>
        <translation>Die Ausgabe von compare ist nicht lesbar: %1</translation>
    </message>
    <message>
        <source> (differs)</source>
        <translation> (weicht ab)</translation>
    </message>
    <message>
        <source>First divergent node: %1 on %2 (rel_err %3)</source>
        <translation>Erster abweichender Knoten: %1 auf %2 (rel_err %3)</translation>
    </message>
    <message>
        <source>All outputs agree (this fxray reports no per-node errors).</source>
        <translation>Alle Ausgaben stimmen überein (dieses fxray meldet keine Fehler je Knoten).</translation>
    </message>
    <message>
        <source>Outputs differ.</source>
        <translation>Ausgaben weichen ab.</translation>
    </message>
    <message>
        <source>Backends agree.</source>
        <translation>Backends stimmen überein.</translation>
    </message>
    <message>
        <source>Backends differ.</source>
        <translation>Backends weichen ab.</translation>
    </message>
    <message numerus="yes">
        <source>%n node(s) compared</source>
        <translation>
            <numerusform>%n Knoten verglichen</numerusform>
            <numerusform>%n Knoten verglichen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n differ(s)</source>
        <translation>
            <numerusform>%n weicht ab</numerusform>
            <numerusform>%n weichen ab</numerusform>
        </translation>
    </message>
    <message>
        <source>Comparing backends</source>
        <translation>Vergleiche Backends</translation>
    </message>
    <message>
        <source>Where the inputs come from: a recorded run, seeded random values, or a folder of NNN.npy files</source>
        <translation>Woher die Eingaben kommen: ein aufgezeichneter Lauf, Zufallswerte mit Seed oder ein Ordner mit NNN.npy-Dateien</translation>
    </message>
    <message>
        <source>recorded: %1</source>
        <translation>aufgezeichnet: %1</translation>
    </message>
    <message>
        <source>folder: %1</source>
        <translation>Ordner: %1</translation>
    </message>
    <message>
        <source>random inputs</source>
        <translation>zufällige Eingaben</translation>
    </message>
    <message>
        <source>inputs folder...</source>
        <translation>Eingabeordner…</translation>
    </message>
    <message>
        <source>Inputs folder (NNN.npy per placeholder)</source>
        <translation>Eingabeordner (NNN.npy je Platzhalter)</translation>
    </message>
    <message>
        <source>The inputs folder has %1 input files but the graph takes %2 inputs.</source>
        <translation>Der Eingabeordner enthält %1 Eingabedateien, der Graph nimmt aber %2 Eingaben.</translation>
    </message>
    <message>
        <source>The inputs folder cannot be read: %1</source>
        <translation>Der Eingabeordner kann nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>The inputs folder does not fit the graph: %1</source>
        <translation>Der Eingabeordner passt nicht zum Graphen: %1</translation>
    </message>
    <message>
        <source>output %1%2 on %3: %4%5</source>
        <translation>Ausgabe %1%2 auf %3: %4%5</translation>
    </message>
    <message>
        <source>Sizes: %1</source>
        <translation>Größen: %1</translation>
    </message>
</context>
<context>
    <name>fxray::views::OutputCodeView</name>
    <message>
        <source>Which of the compile&apos;s output codes (forward, backward, ...) to show</source>
        <translation>Welcher der Ausgabecodes der Kompilierung (Vorwärts, Rückwärts, ...) angezeigt wird</translation>
    </message>
    <message>
        <source>This compile logged no Inductor output code.</source>
        <translation>Diese Kompilierung hat keinen Inductor-Ausgabecode protokolliert.</translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s), %1 linked to graph nodes; click a kernel&apos;s line to select its nodes</source>
        <translation>
            <numerusform>%n Kernel, %1 mit Graphknoten verknüpft; eine Zeile eines Kernels anklicken wählt seine Knoten</numerusform>
            <numerusform>%n Kernel, %1 mit Graphknoten verknüpft; eine Zeile eines Kernels anklicken wählt seine Knoten</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::PartitionLanesView</name>
    <message>
        <source>Partition lanes: forward, saved tensors, backward</source>
        <translation>Partitionsbahnen: Vorwärts, gespeicherte Tensoren, Rückwärts</translation>
    </message>
    <message numerus="yes">
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n Knoten</numerusform>
            <numerusform>%n Knoten</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>↻ %n recomputed</source>
        <translation>
            <numerusform>↻ %n neu berechnet</numerusform>
            <numerusform>↻ %n neu berechnet</numerusform>
        </translation>
    </message>
    <message>
        <source>input</source>
        <translation>Eingabe</translation>
    </message>
    <message>
        <source>saved</source>
        <translation>gespeichert</translation>
    </message>
    <message>
        <source>+ saved</source>
        <translation>+ gespeichert</translation>
    </message>
    <message>
        <source>− recomputed</source>
        <translation>− neu berechnet</translation>
    </message>
    <message>
        <source>− not saved</source>
        <translation>− nicht gespeichert</translation>
    </message>
    <message>
        <source>Forward</source>
        <translation>Vorwärts</translation>
    </message>
    <message>
        <source>Saved for the backward</source>
        <translation>Für den Rückwärtsgraphen gespeichert</translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n Tensor</numerusform>
            <numerusform>%n Tensoren</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n cut edge(s)</source>
        <translation>
            <numerusform>%n Schnittkante</numerusform>
            <numerusform>%n Schnittkanten</numerusform>
        </translation>
    </message>
    <message>
        <source>Backward</source>
        <translation>Rückwärts</translation>
    </message>
    <message>
        <source>Keys: arrows move between saved tensors, J / L jump to the next that joined / left the saved set (Shift: previous), Enter selects it in the graph.</source>
        <translation>Tasten: Pfeile wechseln zwischen gespeicherten Tensoren, J / L springen zum nächsten, der in die gespeicherte Menge kam / sie verließ (Umschalt: zum vorigen), Eingabe wählt ihn im Graphen aus.</translation>
    </message>
    <message>
        <source>No partition: open a joint graph (one with tangents).</source>
        <translation>Keine Partition: einen Joint-Graphen (mit Tangenten) öffnen.</translation>
    </message>
    <message numerus="yes">
        <source>Saved %1 in %n tensor(s); %2 recomputed. Move the memory budget to see what changes.</source>
        <translation>
            <numerusform>%1 in %n Tensor gespeichert; %2 neu berechnet. Das Speicherbudget verschieben, um zu sehen, was sich ändert.</numerusform>
            <numerusform>%1 in %n Tensoren gespeichert; %2 neu berechnet. Das Speicherbudget verschieben, um zu sehen, was sich ändert.</numerusform>
        </translation>
    </message>
    <message>
        <source>Budget %1 → %2: saved %3 → %4, %5 recomputed · %6 joined, %7 left the saved set</source>
        <translation>Budget %1 → %2: gespeichert %3 → %4, %5 neu berechnet · %6 hinzugekommen, %7 nicht mehr gespeichert</translation>
    </message>
    <message numerus="yes">
        <source>✂ %n cut edge(s)</source>
        <translation>
            <numerusform>✂ %n Schnittkante</numerusform>
            <numerusform>✂ %n Schnittkanten</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>reads %n saved</source>
        <translation>
            <numerusform>liest %n gespeicherten Tensor</numerusform>
            <numerusform>liest %n gespeicherte Tensoren</numerusform>
        </translation>
    </message>
    <message>
        <source>Open &amp;large</source>
        <translation>&amp;Groß öffnen</translation>
    </message>
    <message>
        <source>Float the partition pane at a size that shows all three lanes</source>
        <translation>Den Partitionsbereich schwebend in einer Größe zeigen, die alle drei Bahnen fasst</translation>
    </message>
</context>
<context>
    <name>fxray::views::PartitionPanel</name>
    <message>
        <source>Node</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Rule</source>
        <translation>Regel</translation>
    </message>
    <message>
        <source>Op</source>
        <translation>Op</translation>
    </message>
    <message>
        <source>Partition</source>
        <translation>Partitionieren</translation>
    </message>
    <message>
        <source>Split the shown joint graph into forward and backward</source>
        <translation>Den angezeigten Joint-Graphen in Vorwärts und Rückwärts aufteilen</translation>
    </message>
    <message>
        <source>Activation memory budget: 1 saves what the fastest cut saves, 0 recomputes everything</source>
        <translation>Speicherbudget für Aktivierungen: 1 speichert, was der schnellste Schnitt speichert, 0 berechnet alles neu</translation>
    </message>
    <message>
        <source>PyTorch&apos;s figures come from the model folder&apos;s summary.json. Inductor saves parameters at no cost (they live anyway); fxray&apos;s partition here counts every input, so the two sets can differ on parameters while the bytes agree.</source>
        <translation>Die Zahlen von PyTorch stammen aus der summary.json des Modellordners. Inductor speichert Parameter kostenlos (sie leben ohnehin); die Partitionierung von fxray zählt hier jede Eingabe, daher können sich die beiden Mengen bei Parametern unterscheiden, während die Bytes übereinstimmen.</translation>
    </message>
    <message>
        <source>Saved</source>
        <translation>Gespeichert</translation>
    </message>
    <message>
        <source>Banned</source>
        <translation>Gesperrt</translation>
    </message>
    <message>
        <source>Recomputed</source>
        <translation>Neu berechnet</translation>
    </message>
    <message>
        <source>Memory budget</source>
        <translation>Speicherbudget</translation>
    </message>
    <message>
        <source>Partition failed: %1</source>
        <translation>Partitionierung fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Nothing to partition: %1.</source>
        <translation>Nichts zu partitionieren: %1.</translation>
    </message>
    <message>
        <source>Partitioning (budget %1)…</source>
        <translation>Partitioniere (Budget %1)…</translation>
    </message>
    <message>
        <source>Banned (%1)</source>
        <translation>Gesperrt (%1)</translation>
    </message>
    <message>
        <source>Recomputed (%1)</source>
        <translation>Neu berechnet (%1)</translation>
    </message>
    <message>
        <source>Saved (%1)</source>
        <translation>Gespeichert (%1)</translation>
    </message>
    <message numerus="yes">
        <source>Strategy: %1 · %2 forward / %3 backward nodes · cut of %n edge(s)</source>
        <translation>
            <numerusform>Strategie: %1 · %2 Vorwärts- / %3 Rückwärtsknoten · Schnitt aus %n Kante</numerusform>
            <numerusform>Strategie: %1 · %2 Vorwärts- / %3 Rückwärtsknoten · Schnitt aus %n Kanten</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>fxray saves %n value(s): </source>
        <translation>
            <numerusform>fxray speichert %n Wert: </numerusform>
            <numerusform>fxray speichert %n Werte: </numerusform>
        </translation>
    </message>
    <message>
        <source>%1 bytes (%2), activations %3 bytes</source>
        <translation>%1 Bytes (%2), Aktivierungen %3 Bytes</translation>
    </message>
    <message numerus="yes">
        <source>PyTorch saves %n value(s): </source>
        <translation>
            <numerusform>PyTorch speichert %n Wert: </numerusform>
            <numerusform>PyTorch speichert %n Werte: </numerusform>
        </translation>
    </message>
    <message>
        <source>%1 bytes (%2)</source>
        <translation>%1 Bytes (%2)</translation>
    </message>
    <message>
        <source> · differ in %1 (only fxray %2, only PyTorch %3)</source>
        <translation> · Unterschied in %1 (nur fxray %2, nur PyTorch %3)</translation>
    </message>
    <message>
        <source> · same set</source>
        <translation> · gleiche Menge</translation>
    </message>
    <message>
        <source> (PyTorch&apos;s at budget 1.0)</source>
        <translation> (PyTorchs bei Budget 1,0)</translation>
    </message>
    <message>
        <source>Lanes</source>
        <translation>Bahnen</translation>
    </message>
    <message>
        <source>Forward | saved tensors | backward; after a budget move, what joined or left the saved set</source>
        <translation>Vorwärts | gespeicherte Tensoren | Rückwärts; nach einer Budgetänderung, was in die gespeicherte Menge kam oder sie verließ</translation>
    </message>
</context>
<context>
    <name>fxray::views::PassTimelineModel</name>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>failed: %1</source>
        <translation>fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>übersprungen</translation>
    </message>
    <message>
        <source>changed</source>
        <translation>geändert</translation>
    </message>
    <message>
        <source>unchanged</source>
        <translation>unverändert</translation>
    </message>
    <message>
        <source>%1 failed and was undone: %2</source>
        <translation>%1 schlug fehl und wurde rückgängig gemacht: %2</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Pass</source>
        <translation>Durchlauf</translation>
    </message>
    <message>
        <source>Subgraph</source>
        <translation>Teilgraph</translation>
    </message>
    <message>
        <source>ms</source>
        <translation>ms</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>Knoten</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>Ergebnis</translation>
    </message>
</context>
<context>
    <name>fxray::views::PhaseChart</name>
    <message>
        <source>No phase timings logged for this compile.</source>
        <translation>Für diese Kompilierung sind keine Phasenzeiten protokolliert.</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
</context>
<context>
    <name>fxray::views::SavedTensorModel</name>
    <message>
        <source>SymInt</source>
        <translation>SymInt</translation>
    </message>
    <message>
        <source>input</source>
        <translation>Eingabe</translation>
    </message>
    <message>
        <source>saved</source>
        <translation>gespeichert</translation>
    </message>
    <message>
        <source>—</source>
        <translation>—</translation>
    </message>
    <message>
        <source>fxray saves %1; PyTorch recomputes it or does not need it</source>
        <translation>fxray speichert %1; PyTorch berechnet es neu oder braucht es nicht</translation>
    </message>
    <message>
        <source>PyTorch saves %1; fxray does not</source>
        <translation>PyTorch speichert %1; fxray nicht</translation>
    </message>
    <message>
        <source>Saved value</source>
        <translation>Gespeicherter Wert</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>Typ</translation>
    </message>
    <message>
        <source>Bytes</source>
        <translation>Bytes</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>Eingabe</translation>
    </message>
    <message>
        <source>fxray</source>
        <translation>fxray</translation>
    </message>
    <message>
        <source>PyTorch</source>
        <translation>PyTorch</translation>
    </message>
</context>
<context>
    <name>fxray::views::SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>Hell</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>Dunkel</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>&amp;Sprache:</translation>
    </message>
    <message>
        <source>&amp;Theme:</source>
        <translation>&amp;Design:</translation>
    </message>
    <message>
        <source>A new language takes effect when fxray is restarted.</source>
        <translation>Eine neue Sprache wird beim nächsten Start von fxray wirksam.</translation>
    </message>
</context>
<context>
    <name>fxray::views::SizePicker</name>
    <message>
        <source>&amp;Sizes:</source>
        <translation>&amp;Größen:</translation>
    </message>
    <message>
        <source>Dynamic shapes: the value of each symbol the graph&apos;s inputs mention</source>
        <translation>Dynamische Formen: der Wert jedes Symbols, das die Eingaben des Graphen nennen</translation>
    </message>
    <message>
        <source>%1: no hint recorded for this symbol; 8 by default</source>
        <translation>%1: für dieses Symbol ist kein Hinweis aufgezeichnet; standardmäßig 8</translation>
    </message>
    <message>
        <source>%1: the value the trace recorded (its hint)</source>
        <translation>%1: der Wert, den der Trace aufgezeichnet hat (sein Hinweis)</translation>
    </message>
    <message>
        <source>%1 = %2: a size cannot be negative.</source>
        <translation>%1 = %2: Eine Größe kann nicht negativ sein.</translation>
    </message>
    <message>
        <source>%1 = %2 does not match the inputs folder, whose inputs have %1 = %3; choose random inputs to run at other sizes.</source>
        <translation>%1 = %2 passt nicht zum Eingabeordner, dessen Eingaben %1 = %3 haben; wählen Sie zufällige Eingaben, um mit anderen Größen zu rechnen.</translation>
    </message>
    <message>
        <source>input %1: %2</source>
        <translation>Eingabe %1: %2</translation>
    </message>
    <message>
        <source>input %1 would have size %2 in dimension %3 (%4).</source>
        <translation>Eingabe %1 hätte in Dimension %3 die Größe %2 (%4).</translation>
    </message>
    <message>
        <source>PyTorch traces symbols for sizes of at least 2 (0 and 1 are specialized): %1.</source>
        <translation>PyTorch verfolgt Symbole für Größen ab 2 (0 und 1 werden spezialisiert): %1.</translation>
    </message>
</context>
<context>
    <name>fxray::views::SweepPanel</name>
    <message>
        <source>Open an fxray sweep results folder (File &gt; Open Folder) to see its graphs here.</source>
        <translation>Einen Ergebnisordner von fxray sweep öffnen (Datei &gt; Ordner öffnen), um seine Graphen hier zu sehen.</translation>
    </message>
    <message>
        <source>Filter by graph or message</source>
        <translation>Nach Graph oder Meldung filtern</translation>
    </message>
    <message>
        <source>&amp;Failures only</source>
        <translation>Nur &amp;Fehlschläge</translation>
    </message>
    <message>
        <source>Reload results</source>
        <translation>Ergebnisse neu laden</translation>
    </message>
    <message>
        <source>%1 holds no sweep results.</source>
        <translation>%1 enthält keine Sweep-Ergebnisse.</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
</context>
<context>
    <name>fxray::views::SweepResultsModel</name>
    <message numerus="yes">
        <source>%n graph(s): %1 ok, %2 differ, %3 unsupported, %4 errors, %5 crashes, %6 timeouts</source>
        <translation>
            <numerusform>%n Graph: %1 ok, %2 abweichend, %3 nicht unterstützt, %4 Fehler, %5 Abstürze, %6 Zeitüberschreitungen</numerusform>
            <numerusform>%n Graphen: %1 ok, %2 abweichend, %3 nicht unterstützt, %4 Fehler, %5 Abstürze, %6 Zeitüberschreitungen</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (GPU %2)</source>
        <translation>%1 (GPU %2)</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Graph</source>
        <translation>Graph</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Meldung</translation>
    </message>
    <message>
        <source>Max rel. error</source>
        <translation>Max. rel. Fehler</translation>
    </message>
    <message>
        <source>Seconds</source>
        <translation>Sekunden</translation>
    </message>
    <message>
        <source>Worker</source>
        <translation>Worker</translation>
    </message>
</context>
<context>
    <name>fxray::views::TextDiffModel</name>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Before</source>
        <translation>Vorher</translation>
    </message>
    <message>
        <source>After</source>
        <translation>Nachher</translation>
    </message>
</context>
<context>
    <name>fxray::views::TimelinePanel</name>
    <message>
        <source>Compile</source>
        <translation>Kompilieren</translation>
    </message>
    <message>
        <source>Changed passes only</source>
        <translation>Nur geänderte Durchläufe</translation>
    </message>
    <message>
        <source>Show graph before</source>
        <translation>Graph davor zeigen</translation>
    </message>
    <message>
        <source>Next Pass</source>
        <translation>Nächster Durchlauf</translation>
    </message>
    <message>
        <source>Previous Pass</source>
        <translation>Vorheriger Durchlauf</translation>
    </message>
    <message>
        <source>Pass pipeline to run on the current graph</source>
        <translation>Durchlauf-Pipeline, die auf dem aktuellen Graphen läuft</translation>
    </message>
    <message>
        <source>Run the pipeline on the current graph and record every pass</source>
        <translation>Die Pipeline auf dem aktuellen Graphen ausführen und jeden Durchlauf aufzeichnen</translation>
    </message>
    <message>
        <source>Show the graph the failed pass was given</source>
        <translation>Den Graphen zeigen, den der fehlgeschlagene Durchlauf erhielt</translation>
    </message>
    <message>
        <source>Step to the next pass (Alt+Right, F8)</source>
        <translation>Zum nächsten Durchlauf (Alt+Rechts, F8)</translation>
    </message>
    <message>
        <source>Step to the previous pass (Alt+Left, Shift+F8)</source>
        <translation>Zum vorherigen Durchlauf (Alt+Links, Umschalt+F8)</translation>
    </message>
    <message numerus="yes">
        <source>%1: %n pass run(s), </source>
        <translation>
            <numerusform>%1: %n Durchlauf ausgeführt, </numerusform>
            <numerusform>%1: %n Durchläufe ausgeführt, </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n changed, </source>
        <translation>
            <numerusform>%n geändert, </numerusform>
            <numerusform>%n geändert, </numerusform>
        </translation>
    </message>
    <message>
        <source>%1 → %2 nodes, %3 ms</source>
        <translation>%1 → %2 Knoten, %3 ms</translation>
    </message>
    <message numerus="yes">
        <source>, %n failed</source>
        <translation>
            <numerusform>, %n fehlgeschlagen</numerusform>
            <numerusform>, %n fehlgeschlagen</numerusform>
        </translation>
    </message>
    <message>
        <source>Not compiled: choose a pipeline and press Compile.</source>
        <translation>Nicht kompiliert: eine Pipeline wählen und „Kompilieren“ drücken.</translation>
    </message>
    <message>
        <source>%1 failed and was undone: %2</source>
        <translation>%1 schlug fehl und wurde rückgängig gemacht: %2</translation>
    </message>
    <message>
        <source>Select a pass in the timeline to read what it does, why, and which PyTorch function it mirrors.</source>
        <translation>Wählen Sie einen Pass in der Zeitleiste, um zu lesen, was er tut, warum, und welcher PyTorch-Funktion er entspricht.</translation>
    </message>
    <message>
        <source>No explanation is recorded for this pass.</source>
        <translation>Für diesen Pass ist keine Erklärung hinterlegt.</translation>
    </message>
    <message>
        <source>What it does:</source>
        <translation>Was er tut:</translation>
    </message>
    <message>
        <source>Why:</source>
        <translation>Warum:</translation>
    </message>
    <message>
        <source>In PyTorch:</source>
        <translation>In PyTorch:</translation>
    </message>
</context>
</TS>
