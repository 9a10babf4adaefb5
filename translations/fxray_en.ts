<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>QObject</name>
    <message numerus="yes">
        <source>%n guard(s)</source>
        <translation>
            <numerusform>%n guard</numerusform>
            <numerusform>%n guards</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n node(s)) — double-click to collapse or expand</source>
        <translation>
            <numerusform>%1 (%n node) — double-click to collapse or expand</numerusform>
            <numerusform>%1 (%n nodes) — double-click to collapse or expand</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>⊞ %1
%n node(s)</source>
        <translation>
            <numerusform>⊞ %1
%n node</numerusform>
            <numerusform>⊞ %1
%n nodes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %2 blocks of the same %n op(s) each (repeated layers) — click to expand or collapse</source>
        <translation>
            <numerusform>%1: %2 blocks of the same %n op each (repeated layers) — click to expand or collapse</numerusform>
            <numerusform>%1: %2 blocks of the same %n ops each (repeated layers) — click to expand or collapse</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>⊞ %1
× %2 · %n node(s) each</source>
        <translation>
            <numerusform>⊞ %1
× %2 · %n node each</numerusform>
            <numerusform>⊞ %1
× %2 · %n nodes each</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::CompilePicker</name>
    <message numerus="yes">
        <source>%1
stage: %2
%n node(s)</source>
        <translation>
            <numerusform>%1
stage: %2
%n node</numerusform>
            <numerusform>%1
stage: %2
%n nodes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>
%n unknown op(s)</source>
        <translation>
            <numerusform>
%n unknown op</numerusform>
            <numerusform>
%n unknown ops</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::GraphCanvas</name>
    <message numerus="yes">
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n node</numerusform>
            <numerusform>%n nodes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n cluster(s)</source>
        <translation>
            <numerusform>%n cluster</numerusform>
            <numerusform>%n clusters</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Laying out %n node(s)</source>
        <translation>
            <numerusform>Laying out %n node</numerusform>
            <numerusform>Laying out %n nodes</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::GraphScene</name>
    <message numerus="yes">
        <source>%n input(s)</source>
        <translation>
            <numerusform>%n input</numerusform>
            <numerusform>%n inputs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Cut: %n saved tensor(s) into this block of the backward, %1
%2</source>
        <translation>
            <numerusform>Cut: %n saved tensor into this block of the backward, %1
%2</numerusform>
            <numerusform>Cut: %n saved tensors into this block of the backward, %1
%2</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>✂ %n saved</source>
        <translation>
            <numerusform>✂ %n saved</numerusform>
            <numerusform>✂ %n saved</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The cut edges leaving this block: %n saved tensor(s) the backward reads</source>
        <translation>
            <numerusform>The cut edges leaving this block: %n saved tensor the backward reads</numerusform>
            <numerusform>The cut edges leaving this block: %n saved tensors the backward reads</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::KernelArtifactModel</name>
    <message numerus="yes">
        <source>%1 (%n line(s))</source>
        <translation>
            <numerusform>%1 (%n line)</numerusform>
            <numerusform>%1 (%n lines)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 · %2 (%n line(s))</source>
        <translation>
            <numerusform>%1 · %2 (%n line)</numerusform>
            <numerusform>%1 · %2 (%n lines)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::MainWindow</name>
    <message numerus="yes">
        <source>%1 · %n node(s)</source>
        <translation>
            <numerusform>%1 · %n node</numerusform>
            <numerusform>%1 · %n nodes</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::MatchModel</name>
    <message numerus="yes">
        <source>%n match(es)</source>
        <translation>
            <numerusform>%n match</numerusform>
            <numerusform>%n matches</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n near-miss(es)</source>
        <translation>
            <numerusform>%n near-miss</numerusform>
            <numerusform>%n near-misses</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::MinifierPanel</name>
    <message numerus="yes">
        <source>%1 (%n node(s))</source>
        <translation>
            <numerusform>%1 (%n node)</numerusform>
            <numerusform>%1 (%n nodes)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 nodes after %n query(s) (%2)</source>
        <translation>
            <numerusform>%1 nodes after %n query (%2)</numerusform>
            <numerusform>%1 nodes after %n queries (%2)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n query(s) · %1 → %2 nodes · %3 s · %4</source>
        <translation>
            <numerusform>%n query · %1 → %2 nodes · %3 s · %4</numerusform>
            <numerusform>%n queries · %1 → %2 nodes · %3 s · %4</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 → %2 nodes in %n query(s) (%3 s)</source>
        <translation>
            <numerusform>%1 → %2 nodes in %n query (%3 s)</numerusform>
            <numerusform>%1 → %2 nodes in %n queries (%3 s)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::NodeInspectorModel</name>
    <message numerus="yes">
        <source>tuple of %n</source>
        <translation>
            <numerusform>tuple of %n</numerusform>
            <numerusform>tuple of %n</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::PartitionLanesView</name>
    <message numerus="yes">
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n node</numerusform>
            <numerusform>%n nodes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>↻ %n recomputed</source>
        <translation>
            <numerusform>↻ %n recomputed</numerusform>
            <numerusform>↻ %n recomputed</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>✂ %n cut edge(s)</source>
        <translation>
            <numerusform>✂ %n cut edge</numerusform>
            <numerusform>✂ %n cut edges</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>reads %n saved</source>
        <translation>
            <numerusform>reads %n saved</numerusform>
            <numerusform>reads %n saved</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n tensor</numerusform>
            <numerusform>%n tensors</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n cut edge(s)</source>
        <translation>
            <numerusform>%n cut edge</numerusform>
            <numerusform>%n cut edges</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Saved %1 in %n tensor(s); %2 recomputed. Move the memory budget to see what changes.</source>
        <translation>
            <numerusform>Saved %1 in %n tensor; %2 recomputed. Move the memory budget to see what changes.</numerusform>
            <numerusform>Saved %1 in %n tensors; %2 recomputed. Move the memory budget to see what changes.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::PartitionPanel</name>
    <message numerus="yes">
        <source>Strategy: %1 · %2 forward / %3 backward nodes · cut of %n edge(s)</source>
        <translation>
            <numerusform>Strategy: %1 · %2 forward / %3 backward nodes · cut of %n edge</numerusform>
            <numerusform>Strategy: %1 · %2 forward / %3 backward nodes · cut of %n edges</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>fxray saves %n value(s): </source>
        <translation>
            <numerusform>fxray saves %n value: </numerusform>
            <numerusform>fxray saves %n values: </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>PyTorch saves %n value(s): </source>
        <translation>
            <numerusform>PyTorch saves %n value: </numerusform>
            <numerusform>PyTorch saves %n values: </numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::TimelinePanel</name>
    <message numerus="yes">
        <source>%1: %n pass run(s), </source>
        <translation>
            <numerusform>%1: %n pass run, </numerusform>
            <numerusform>%1: %n pass runs, </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n changed, </source>
        <translation>
            <numerusform>%n changed, </numerusform>
            <numerusform>%n changed, </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>, %n failed</source>
        <translation>
            <numerusform>, %n failed</numerusform>
            <numerusform>, %n failed</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::KernelPanel</name>
    <message numerus="yes">
        <source>Compiling %n node(s)...</source>
        <translation>
            <numerusform>Compiling %n node...</numerusform>
            <numerusform>Compiling %n nodes...</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s)</source>
        <translation>
            <numerusform>%n kernel</numerusform>
            <numerusform>%n kernels</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 is computed in %n kernel(s)</source>
        <translation>
            <numerusform>%1 is computed in %n kernel</numerusform>
            <numerusform>%1 is computed in %n kernels</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::NumericsPanel</name>
    <message numerus="yes">
        <source>%n node(s) compared</source>
        <translation>
            <numerusform>%n node compared</numerusform>
            <numerusform>%n nodes compared</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n differ(s)</source>
        <translation>
            <numerusform>%n differs</numerusform>
            <numerusform>%n differ</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::SweepResultsModel</name>
    <message numerus="yes">
        <source>%n graph(s): %1 ok, %2 differ, %3 unsupported, %4 errors, %5 crashes, %6 timeouts</source>
        <translation>
            <numerusform>%n graph: %1 ok, %2 differ, %3 unsupported, %4 errors, %5 crashes, %6 timeouts</numerusform>
            <numerusform>%n graphs: %1 ok, %2 differ, %3 unsupported, %4 errors, %5 crashes, %6 timeouts</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::CompileStoryPanel</name>
    <message numerus="yes">
        <source>%n node(s), shown on the canvas</source>
        <translation>
            <numerusform>%n node, shown on the canvas</numerusform>
            <numerusform>%n nodes, shown on the canvas</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n compile(s): %1 · %2 distinct graph break(s)</source>
        <translation>
            <numerusform>%n compile: %1 · %2 distinct graph break(s)</numerusform>
            <numerusform>%n compiles: %1 · %2 distinct graph break(s)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::MatchPanel</name>
    <message numerus="yes">
        <source>Matched (%n node(s))</source>
        <translation>
            <numerusform>Matched (%n node)</numerusform>
            <numerusform>Matched (%n nodes)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Replacement (%n node(s))</source>
        <translation>
            <numerusform>Replacement (%n node)</numerusform>
            <numerusform>Replacement (%n nodes)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::OutputCodeView</name>
    <message numerus="yes">
        <source>%n kernel(s), %1 linked to graph nodes; click a kernel&apos;s line to select its nodes</source>
        <translation>
            <numerusform>%n kernel, %1 linked to graph nodes; click a kernel&apos;s line to select its nodes</numerusform>
            <numerusform>%n kernels, %1 linked to graph nodes; click a kernel&apos;s line to select its nodes</numerusform>
        </translation>
    </message>
</context>
</TS>
