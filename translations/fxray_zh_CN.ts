<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>CanvasGraph</name>
    <message>
        <source>%1 nodes %2–%3</source>
        <translation>%1 节点 %2–%3</translation>
    </message>
    <message>
        <source>%1 block %2 · %3</source>
        <translation>%1 块 %2 · %3</translation>
    </message>
    <message>
        <source>%1 prologue</source>
        <translation>%1 序言</translation>
    </message>
    <message>
        <source>input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>pointwise</source>
        <translation>逐元素</translation>
    </message>
    <message>
        <source>reduction</source>
        <translation>归约</translation>
    </message>
    <message>
        <source>view</source>
        <translation>视图</translation>
    </message>
    <message>
        <source>extern (matmul, conv)</source>
        <translation>外部 (matmul, conv)</translation>
    </message>
    <message>
        <source>random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>higher-order</source>
        <translation>高阶</translation>
    </message>
    <message>
        <source>creation</source>
        <translation>创建</translation>
    </message>
    <message>
        <source>other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>graph</source>
        <translation>图</translation>
    </message>
    <message>
        <source>symbolic scalar (SymInt)</source>
        <translation>符号标量 (SymInt)</translation>
    </message>
    <message>
        <source>%1 blocks %2–%3 · %4</source>
        <translation>%1 块 %2–%3 · %4</translation>
    </message>
    <message>
        <source>%1 after block %2</source>
        <translation>%1 块 %2 之后</translation>
    </message>
</context>
<context>
    <name>GraphLayout</name>
    <message>
        <source>Graphviz: no context</source>
        <translation>Graphviz:没有上下文</translation>
    </message>
    <message>
        <source>Graphviz: the dot layout plugin is not available</source>
        <translation>Graphviz:dot 布局插件不可用</translation>
    </message>
    <message>
        <source>built without Graphviz</source>
        <translation>构建时未包含 Graphviz</translation>
    </message>
</context>
<context>
    <name>KernelReport</name>
    <message>
        <source> reduce dim %1</source>
        <translation> 归约维度 %1</translation>
    </message>
    <message>
        <source>NVRTC compiled the module to PTX (compute_80) in %1 ms</source>
        <translation>NVRTC 已在 %1 ms 内将模块编译为 PTX(compute_80)</translation>
    </message>
    <message>
        <source>CUDA source only: %1</source>
        <translation>仅有 CUDA 源代码:%1</translation>
    </message>
    <message>
        <source>no CUDA source: %1</source>
        <translation>无 CUDA 源代码:%1</translation>
    </message>
</context>
<context>
    <name>NodeOverlay</name>
    <message>
        <source>numeric error (relative)</source>
        <translation>数值误差（相对）</translation>
    </message>
    <message>
        <source>kernel time</source>
        <translation>内核时间</translation>
    </message>
    <message>
        <source>saved for backward</source>
        <translation>为反向保存</translation>
    </message>
    <message>
        <source>last changed by</source>
        <translation>最后修改者</translation>
    </message>
    <message>
        <source>cannot open: %1</source>
        <translation>无法打开：%1</translation>
    </message>
    <message>
        <source>not JSON at byte %1: %2</source>
        <translation>第 %1 字节处不是 JSON：%2</translation>
    </message>
    <message>
        <source>no &quot;steps&quot; array: not the output of fxray bench --json</source>
        <translation>没有 &quot;steps&quot; 数组：不是 fxray bench --json 的输出</translation>
    </message>
    <message>
        <source>step %1 has no &quot;ms&quot; number or &quot;nodes&quot; list</source>
        <translation>步骤 %1 没有 &quot;ms&quot; 数值或 &quot;nodes&quot; 列表</translation>
    </message>
</context>
<context>
    <name>Panels</name>
    <message>
        <source>Passes</source>
        <translation>编译遍</translation>
    </message>
    <message>
        <source>Matches</source>
        <translation>匹配</translation>
    </message>
    <message>
        <source>Inspector</source>
        <translation>检查器</translation>
    </message>
    <message>
        <source>Partition</source>
        <translation>划分</translation>
    </message>
    <message>
        <source>Code</source>
        <translation>代码</translation>
    </message>
    <message>
        <source>Diff</source>
        <translation>差异</translation>
    </message>
    <message>
        <source>Kernels</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>Minifier</source>
        <translation>最小化器</translation>
    </message>
    <message>
        <source>Numerics</source>
        <translation>数值</translation>
    </message>
</context>
<context>
    <name>PartitionLanes</name>
    <message>
        <source>inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>tangents</source>
        <translation>切向量</translation>
    </message>
    <message>
        <source>forward (outside layers)</source>
        <translation>前向（层之外）</translation>
    </message>
    <message>
        <source>backward (outside layers)</source>
        <translation>反向（层之外）</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>frame</source>
        <translation>帧</translation>
    </message>
    <message>
        <source>graph nodes</source>
        <translation>图节点</translation>
    </message>
    <message>
        <source>graph ops</source>
        <translation>图算子</translation>
    </message>
    <message>
        <source>guards</source>
        <translation>守卫</translation>
    </message>
    <message>
        <source>frame compile</source>
        <translation>帧编译</translation>
    </message>
    <message>
        <source>backend compile</source>
        <translation>后端编译</translation>
    </message>
    <message>
        <source>inductor compile</source>
        <translation>Inductor 编译</translation>
    </message>
    <message>
        <source>code generation</source>
        <translation>代码生成</translation>
    </message>
    <message>
        <source>failure</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Nothing to export</source>
        <translation>没有可导出的内容</translation>
    </message>
    <message>
        <source>fxray graph</source>
        <translation>fxray 图</translation>
    </message>
    <message>
        <source>Cannot write %1</source>
        <translation>无法写入 %1</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1:%2</translation>
    </message>
    <message>
        <source>removed by this pass</source>
        <translation>已被此编译遍移除</translation>
    </message>
    <message>
        <source>(no type)</source>
        <translation>(无类型)</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n node(s)) — double-click to collapse or expand</source>
        <translation>
            <numerusform>%1(%n 个节点)— 双击以折叠或展开</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>⊞ %1
%n node(s)</source>
        <translation>
            <numerusform>⊞ %1
%n 个节点</numerusform>
        </translation>
    </message>
    <message>
        <source>⊟ %1 (%2)</source>
        <translation>⊟ %1(%2)</translation>
    </message>
    <message>
        <source>Debugger for PyTorch graph compilers</source>
        <translation>PyTorch 图编译器调试器</translation>
    </message>
    <message>
        <source>Graph file or folder to open</source>
        <translation>要打开的图文件或文件夹</translation>
    </message>
    <message>
        <source>Render the window to PNG and exit</source>
        <translation>将窗口渲染为 PNG 后退出</translation>
    </message>
    <message>
        <source>Graph to show (index, id or stage)</source>
        <translation>要显示的图(索引、ID 或阶段)</translation>
    </message>
    <message>
        <source>Pass to show (name or index; compiles first)</source>
        <translation>要显示的编译遍(名称或索引;会先编译)</translation>
    </message>
    <message>
        <source>Pipeline to compile (default joint)</source>
        <translation>要编译的流水线(默认 joint)</translation>
    </message>
    <message>
        <source>Canvas colouring: canvas, diff or partition</source>
        <translation>画布着色:canvas、diff 或 partition</translation>
    </message>
    <message>
        <source>Node to select</source>
        <translation>要选中的节点</translation>
    </message>
    <message>
        <source>Window size for the screenshot, WxH</source>
        <translation>截图的窗口大小,宽x高</translation>
    </message>
    <message>
        <source>light or dark</source>
        <translation>light(浅色)或 dark(深色)</translation>
    </message>
    <message>
        <source>Language for this run: en, de or zh_CN (default: the setting)</source>
        <translation>本次运行的语言:en、de 或 zh_CN(默认:设置中的语言)</translation>
    </message>
    <message>
        <source>no translation for language &quot;%1&quot; (en, de or zh_CN)</source>
        <translation>没有语言“%1”的翻译(en、de 或 zh_CN)</translation>
    </message>
    <message>
        <source>--screenshot needs a FILE</source>
        <translation>--screenshot 需要一个文件</translation>
    </message>
    <message>
        <source>no graph &quot;%1&quot; in %2</source>
        <translation>%2 中没有图“%1”</translation>
    </message>
    <message>
        <source>no pass &quot;%1&quot; in pipeline %2</source>
        <translation>流水线 %2 中没有编译遍“%1”</translation>
    </message>
    <message>
        <source>unknown view &quot;%1&quot; (canvas, diff or partition)</source>
        <translation>未知视图“%1”(canvas、diff 或 partition)</translation>
    </message>
    <message>
        <source>layout did not finish</source>
        <translation>布局未完成</translation>
    </message>
    <message>
        <source>cannot write %1</source>
        <translation>无法写入 %1</translation>
    </message>
    <message numerus="yes">
        <source>%1: %2 blocks of the same %n op(s) each (repeated layers) — click to expand or collapse</source>
        <translation>
            <numerusform>%1：%2 个相同的块，每块 %n 个操作（重复的层）— 单击以展开或折叠</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>⊞ %1
× %2 · %n node(s) each</source>
        <translation>
            <numerusform>⊞ %1
× %2 · 每块 %n 个节点</numerusform>
        </translation>
    </message>
    <message>
        <source>⊟ %1 (× %2)</source>
        <translation>⊟ %1(× %2)</translation>
    </message>
    <message>
        <source>Frame:</source>
        <translation>帧：</translation>
    </message>
    <message>
        <source>Failure</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Graph breaks</source>
        <translation>图中断</translation>
    </message>
    <message>
        <source>Restart reasons</source>
        <translation>重启原因</translation>
    </message>
    <message>
        <source>Recompiled because</source>
        <translation>重新编译的原因</translation>
    </message>
    <message>
        <source>Guards</source>
        <translation>守卫</translation>
    </message>
    <message numerus="yes">
        <source>%n guard(s)</source>
        <translation>
            <numerusform>%n 个守卫</numerusform>
        </translation>
    </message>
    <message>
        <source>no guard count logged</source>
        <translation>未记录守卫数量</translation>
    </message>
    <message>
        <source>Failed later:</source>
        <translation>之后失败：</translation>
    </message>
    <message>
        <source>Symbols</source>
        <translation>符号</translation>
    </message>
    <message>
        <source>Stages</source>
        <translation>阶段</translation>
    </message>
</context>
<context>
    <name>fxray::views::CodePanel</name>
    <message>
        <source>The FX code of the shown graph appears here.</source>
        <translation>此处显示当前图的 FX 代码。</translation>
    </message>
</context>
<context>
    <name>fxray::views::CompilePicker</name>
    <message>
        <source>Compile / stage</source>
        <translation>编译 / 阶段</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>(no compile id)</source>
        <translation>(无编译 ID)</translation>
    </message>
    <message>
        <source>compile %1</source>
        <translation>编译 %1</translation>
    </message>
    <message numerus="yes">
        <source>%1
stage: %2
%n node(s)</source>
        <translation>
            <numerusform>%1
阶段:%2
%n 个节点</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>
%n unknown op(s)</source>
        <translation>
            <numerusform>
%n 个未知算子</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::CompileStoryPanel</name>
    <message>
        <source>&amp;Minify failing graph</source>
        <translation>最小化失败的图(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Details</source>
        <translation>详情(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Timings</source>
        <translation>耗时(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Kernels</source>
        <translation>内核(&amp;K)</translation>
    </message>
    <message>
        <source>Reading the compile story</source>
        <translation>正在读取编译过程</translation>
    </message>
    <message numerus="yes">
        <source>%n compile(s): %1 · %2 distinct graph break(s)</source>
        <translation>
            <numerusform>%n 次编译：%1 · %2 个不同的图中断</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Kernels (%1)</source>
        <translation>内核 (%1)(&amp;K)</translation>
    </message>
    <message>
        <source>Failed on graph</source>
        <translation>失败的图</translation>
    </message>
    <message numerus="yes">
        <source>%n node(s), shown on the canvas</source>
        <translation>
            <numerusform>%n 个节点，显示在画布上</numerusform>
        </translation>
    </message>
    <message>
        <source>Make the graph this compile failed on current and minify it against PyTorch (torch.compile with Inductor) when PyTorch is installed</source>
        <translation>将此次编译失败时的图设为当前图，并在安装了 PyTorch 时针对 PyTorch（使用 Inductor 的 torch.compile）对其进行最小化</translation>
    </message>
    <message>
        <source>Output &amp;code</source>
        <translation>输出代码(&amp;C)</translation>
    </message>
    <message>
        <source>output code %1</source>
        <translation>输出代码 %1</translation>
    </message>
    <message>
        <source>Output &amp;code (%1)</source>
        <translation>输出代码(&amp;C) (%1)</translation>
    </message>
    <message>
        <source>Checking for Python with PyTorch…</source>
        <translation>正在查找带有 PyTorch 的 Python…</translation>
    </message>
    <message>
        <source>Checking for PyTorch</source>
        <translation>正在查找 PyTorch</translation>
    </message>
    <message>
        <source>Minifying against %1: torch.compile with Inductor, in the Minifier pane</source>
        <translation>正在针对 %1 进行最小化：使用 Inductor 的 torch.compile，见最小化器窗格</translation>
    </message>
    <message>
        <source>PyTorch is not available, so the graph cannot be minified against it: %1. The Minifier opens for another check.</source>
        <translation>PyTorch 不可用，因此无法针对它最小化该图：%1。最小化器将打开以选择其他检查。</translation>
    </message>
</context>
<context>
    <name>fxray::views::CompileTreeModel</name>
    <message>
        <source>frame %1</source>
        <translation>帧 %1</translation>
    </message>
    <message>
        <source>frame %1 · %2</source>
        <translation>帧 %1 · %2</translation>
    </message>
    <message>
        <source>compile %1</source>
        <translation>编译 %1</translation>
    </message>
    <message>
        <source>compiled autograd %1 · </source>
        <translation>编译的 autograd %1 · </translation>
    </message>
    <message>
        <source>rank %1 · </source>
        <translation>rank %1 · </translation>
    </message>
    <message>
        <source>recompiled: %1</source>
        <translation>重新编译：%1</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>Frame / attempt / stage</source>
        <translation>帧 / 尝试 / 阶段</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>原因</translation>
    </message>
</context>
<context>
    <name>fxray::views::DiffPanel</name>
    <message>
        <source>Comments</source>
        <translation>注释</translation>
    </message>
    <message>
        <source>Include the # File: provenance comments in the diff</source>
        <translation>在差异中包含 # File: 来源注释</translation>
    </message>
    <message>
        <source>Previous change</source>
        <translation>上一处更改</translation>
    </message>
    <message>
        <source>Next change</source>
        <translation>下一处更改</translation>
    </message>
    <message>
        <source>The input graph: step to a pass to see what it changed.</source>
        <translation>这是输入图:切换到某个编译遍以查看它的更改。</translation>
    </message>
    <message>
        <source> on %1</source>
        <translation>(作用于 %1)</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; failed and was undone: no change</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; 失败并已撤销:无更改</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; left the graph unchanged</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; 未改变图</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;: &lt;span style=&apos;color:#2e7d32&apos;&gt;+%2&lt;/span&gt; &lt;span style=&apos;color:#c62828&apos;&gt;−%3&lt;/span&gt; lines, %4 → %5 nodes</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;:&lt;span style=&apos;color:#2e7d32&apos;&gt;+%2&lt;/span&gt; &lt;span style=&apos;color:#c62828&apos;&gt;−%3&lt;/span&gt; 行,%4 → %5 个节点</translation>
    </message>
</context>
<context>
    <name>fxray::views::Document</name>
    <message>
        <source>Loading %1</source>
        <translation>正在加载 %1</translation>
    </message>
    <message>
        <source>Compiling (%1)</source>
        <translation>正在编译(%1)</translation>
    </message>
    <message>
        <source>Partitioning (budget %1)</source>
        <translation>正在划分(预算 %1)</translation>
    </message>
    <message>
        <source>Nothing to save: no file is open</source>
        <translation>没有可保存的内容:未打开文件</translation>
    </message>
</context>
<context>
    <name>fxray::views::GraphCanvas</name>
    <message>
        <source>&amp;Fit to Window</source>
        <translation>适应窗口(&amp;F)</translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Find Node...</source>
        <translation>查找节点(&amp;F)…</translation>
    </message>
    <message>
        <source>Find &amp;Next</source>
        <translation>查找下一个(&amp;N)</translation>
    </message>
    <message>
        <source>Find &amp;Previous</source>
        <translation>查找上一个(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Collapse All Clusters</source>
        <translation>折叠所有分组(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Expand All Clusters</source>
        <translation>展开所有分组(&amp;E)</translation>
    </message>
    <message>
        <source>Colour by &amp;Category</source>
        <translation>按类别着色(&amp;C)</translation>
    </message>
    <message>
        <source>Colour by &amp;Diff</source>
        <translation>按差异着色(&amp;D)</translation>
    </message>
    <message>
        <source>Colour by &amp;Partition</source>
        <translation>按划分着色(&amp;P)</translation>
    </message>
    <message>
        <source>Canvas</source>
        <translation>画布</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Diff</source>
        <translation>差异</translation>
    </message>
    <message>
        <source>Partition</source>
        <translation>划分</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>适应</translation>
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
        <translation>折叠</translation>
    </message>
    <message>
        <source>Expand</source>
        <translation>展开</translation>
    </message>
    <message>
        <source>Find</source>
        <translation>查找</translation>
    </message>
    <message>
        <source>Find node by name, op or shape (F3 next, Shift+F3 previous, Esc closes)</source>
        <translation>按名称、算子或形状查找节点(F3 下一个,Shift+F3 上一个,Esc 关闭)</translation>
    </message>
    <message>
        <source>Close (Esc)</source>
        <translation>关闭(Esc)</translation>
    </message>
    <message>
        <source>Find:</source>
        <translation>查找:</translation>
    </message>
    <message>
        <source>Close Find Bar</source>
        <translation>关闭查找栏</translation>
    </message>
    <message numerus="yes">
        <source>Laying out %n node(s)</source>
        <translation>
            <numerusform>正在布局 %n 个节点</numerusform>
        </translation>
    </message>
    <message>
        <source>+%1 −%2 ~%3</source>
        <translation>+%1 −%2 ~%3</translation>
    </message>
    <message>
        <source>added</source>
        <translation>新增</translation>
    </message>
    <message>
        <source>removed (ghost)</source>
        <translation>已删除(虚影)</translation>
    </message>
    <message>
        <source>rewritten</source>
        <translation>已重写</translation>
    </message>
    <message>
        <source>unchanged</source>
        <translation>未改变</translation>
    </message>
    <message>
        <source>— no previous snapshot at this pass: step forward to see a diff</source>
        <translation>— 此编译遍没有前一快照:向前一步以查看差异</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>saved (framed)</source>
        <translation>保存(加框)</translation>
    </message>
    <message>
        <source>recomputed (dashed)</source>
        <translation>重计算(虚线)</translation>
    </message>
    <message>
        <source>— partitioning…</source>
        <translation>— 正在划分…</translation>
    </message>
    <message>
        <source>no match</source>
        <translation>无匹配</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Unknown export format &quot;%1&quot; (use .svg, .png or .dot)</source>
        <translation>未知的导出格式“%1”(请使用 .svg、.png 或 .dot)</translation>
    </message>
    <message>
        <source>Colour by &amp;Numeric Error</source>
        <translation>按数值误差着色(&amp;N)</translation>
    </message>
    <message>
        <source>Numerics</source>
        <translation>数值</translation>
    </message>
    <message numerus="yes">
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n 个节点</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n cluster(s)</source>
        <translation>
            <numerusform>%n 个簇</numerusform>
        </translation>
    </message>
    <message>
        <source> · layout: %1 %2 ms</source>
        <translation> · 布局:%1 %2 ms</translation>
    </message>
    <message>
        <source>rel_err:</source>
        <translation>rel_err:</translation>
    </message>
    <message>
        <source>not compared</source>
        <translation>未比较</translation>
    </message>
    <message>
        <source>— run a comparison in the Numerics pane</source>
        <translation>— 请在“数值”面板中运行比较</translation>
    </message>
    <message>
        <source>no value</source>
        <translation>无值</translation>
    </message>
    <message>
        <source>· blocks: sum of their nodes</source>
        <translation>· 块：其节点之和</translation>
    </message>
    <message>
        <source>· blocks: max of their nodes</source>
        <translation>· 块：其节点的最大值</translation>
    </message>
    <message>
        <source>No overlay</source>
        <translation>无叠加</translation>
    </message>
    <message>
        <source>Saved bytes</source>
        <translation>保存的字节</translation>
    </message>
    <message>
        <source>Last changed by pass</source>
        <translation>最后修改的 pass</translation>
    </message>
    <message>
        <source>Paint a value per node over the category colours; collapsed blocks show their nodes&apos; max or sum</source>
        <translation>在类别颜色之上为每个节点绘制一个值；折叠的块显示其节点的最大值或总和</translation>
    </message>
    <message>
        <source>Kernel time (fxray bench --json)…</source>
        <translation>内核时间（fxray bench --json）…</translation>
    </message>
    <message>
        <source>Open fxray bench --json output</source>
        <translation>打开 fxray bench --json 的输出</translation>
    </message>
    <message>
        <source>JSON (*.json);;All files (*)</source>
        <translation>JSON (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>cut edges of activations, bundled per block: ✂ saved tensors · bytes</source>
        <translation>激活值的切分边，按块捆绑：✂ 保存的张量 · 字节</translation>
    </message>
</context>
<context>
    <name>fxray::views::GraphScene</name>
    <message numerus="yes">
        <source>%n input(s)</source>
        <translation>
            <numerusform>%n 个输入</numerusform>
        </translation>
    </message>
    <message>
        <source>used only in blocks below</source>
        <translation>仅在下方的块中使用</translation>
    </message>
    <message numerus="yes">
        <source>Cut: %n saved tensor(s) into this block of the backward, %1
%2</source>
        <translation>
            <numerusform>切分：%n 个保存的张量进入反向的此块，%1
%2</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>✂ %n saved</source>
        <translation>
            <numerusform>✂ 已保存 %n 个</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The cut edges leaving this block: %n saved tensor(s) the backward reads</source>
        <translation>
            <numerusform>离开此块的切分边：反向读取的 %n 个保存张量</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 → %2, removed by this pass</source>
        <translation>%1 → %2，被此 pass 移除</translation>
    </message>
</context>
<context>
    <name>fxray::views::InspectorPanel</name>
    <message>
        <source>Select a node to inspect it.</source>
        <translation>选择一个节点以查看其详情。</translation>
    </message>
    <message>
        <source>%1 is not in the shown graph</source>
        <translation>%1 不在当前显示的图中</translation>
    </message>
    <message>
        <source>%1 (removed by this pass; as it was before)</source>
        <translation>%1(已被此编译遍移除;显示移除前的状态)</translation>
    </message>
    <message>
        <source> · first of %1 selected</source>
        <translation> · %1 个选中项中的第一个</translation>
    </message>
</context>
<context>
    <name>fxray::views::KernelArtifactModel</name>
    <message numerus="yes">
        <source>%1 (%n line(s))</source>
        <translation>
            <numerusform>%1(%n 行)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 · %2 (%n line(s))</source>
        <translation>
            <numerusform>%1 · %2(%n 行)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::KernelPanel</name>
    <message>
        <source>Find in code (Enter: next, Shift+Enter: previous)</source>
        <translation>在代码中查找(Enter:下一个,Shift+Enter:上一个)</translation>
    </message>
    <message>
        <source>This file carries no generated kernel code (inductor_output_code, output_code.py).</source>
        <translation>此文件不包含生成的内核代码(inductor_output_code、output_code.py)。</translation>
    </message>
    <message>
        <source>not found</source>
        <translation>未找到</translation>
    </message>
    <message>
        <source>fxray kernels</source>
        <translation>fxray 内核</translation>
    </message>
    <message>
        <source>Inductor code</source>
        <translation>Inductor 代码</translation>
    </message>
    <message>
        <source>Compile</source>
        <translation>编译</translation>
    </message>
    <message>
        <source>Compile the shown graph with fxray&apos;s backends (lowering, fusion, LLVM, CUDA C++)</source>
        <translation>用 fxray 的后端编译当前显示的图(降级、融合、LLVM、CUDA C++)</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Iteration space</source>
        <translation>迭代空间</translation>
    </message>
    <message>
        <source>Fused nodes</source>
        <translation>融合的节点</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Runs as</source>
        <translation>运行方式</translation>
    </message>
    <message>
        <source>Kernels</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>Group map</source>
        <translation>分组映射</translation>
    </message>
    <message>
        <source>Kernel IR</source>
        <translation>内核 IR</translation>
    </message>
    <message>
        <source>LLVM IR</source>
        <translation>LLVM IR</translation>
    </message>
    <message>
        <source>Assembly</source>
        <translation>汇编</translation>
    </message>
    <message>
        <source>CUDA C++</source>
        <translation>CUDA C++</translation>
    </message>
    <message>
        <source>Not compiled yet.</source>
        <translation>尚未编译。</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message numerus="yes">
        <source>Compiling %n node(s)...</source>
        <translation>
            <numerusform>正在编译 %n 个节点...</numerusform>
        </translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>No graph.</source>
        <translation>没有图。</translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s)</source>
        <translation>
            <numerusform>%n 个内核</numerusform>
        </translation>
    </message>
    <message>
        <source>compiled in %1 ms</source>
        <translation>编译用时 %1 ms</translation>
    </message>
    <message>
        <source>LLVM for %1</source>
        <translation>LLVM 目标:%1</translation>
    </message>
    <message>
        <source>this build has no CPU backend: no LLVM IR or assembly</source>
        <translation>此构建没有 CPU 后端:无 LLVM IR 和汇编</translation>
    </message>
    <message>
        <source>Compile failed: %1</source>
        <translation>编译失败:%1</translation>
    </message>
    <message>
        <source>Select a kernel, or a node on the canvas.</source>
        <translation>请选择一个内核,或在画布上选择一个节点。</translation>
    </message>
    <message>
        <source>This build has no CPU backend (LLVM).</source>
        <translation>此构建没有 CPU 后端(LLVM)。</translation>
    </message>
    <message numerus="yes">
        <source>%1 is computed in %n kernel(s)</source>
        <translation>
            <numerusform>%1 在 %n 个内核中计算</numerusform>
        </translation>
    </message>
    <message>
        <source>checking the CUDA C++ with NVRTC...</source>
        <translation>正在用 NVRTC 检查 CUDA C++ 代码...</translation>
    </message>
    <message>
        <source>%1 runs as %2 (%3): no generated kernel.</source>
        <translation>%1 以 %2 方式运行(%3):没有生成的内核。</translation>
    </message>
    <message>
        <source>%1 is not computed by a kernel.</source>
        <translation>%1 不由任何内核计算。</translation>
    </message>
    <message>
        <source>Compiling kernels</source>
        <translation>正在编译内核</translation>
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
        <translation>Sweep：%1 — %2</translation>
    </message>
    <message>
        <source>Sweep results %1: double-click a row to open its graph</source>
        <translation>Sweep 结果 %1：双击一行即可打开其图</translation>
    </message>
    <message>
        <source>fxray</source>
        <translation>fxray</translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <source>Compiles</source>
        <translation>编译</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open File...</source>
        <translation>打开文件(&amp;O)…</translation>
    </message>
    <message>
        <source>Open &amp;Folder...</source>
        <translation>打开文件夹(&amp;F)…</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>Re&amp;load</source>
        <translation>重新加载(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Save Session</source>
        <translation>保存会话(&amp;S)</translation>
    </message>
    <message>
        <source>Save Session &amp;As...</source>
        <translation>会话另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Export View</source>
        <translation>导出视图(&amp;E)</translation>
    </message>
    <message>
        <source>As &amp;SVG...</source>
        <translation>导出为 &amp;SVG…</translation>
    </message>
    <message>
        <source>As &amp;PNG...</source>
        <translation>导出为 &amp;PNG…</translation>
    </message>
    <message>
        <source>As &amp;DOT...</source>
        <translation>导出为 &amp;DOT…</translation>
    </message>
    <message>
        <source>&amp;Settings...</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Panes</source>
        <translation>面板(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Reset Layout</source>
        <translation>重置布局(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Compile</source>
        <translation>编译(&amp;C)</translation>
    </message>
    <message>
        <source>Run &amp;%1 Pipeline</source>
        <translation>运行 &amp;%1 流水线</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Keyboard Shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>Keyboard Shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>&amp;About fxray</source>
        <translation>关于 fxray(&amp;A)</translation>
    </message>
    <message>
        <source>About fxray</source>
        <translation>关于 fxray</translation>
    </message>
    <message>
        <source>fxray %1: a debugger for PyTorch graph compilers.</source>
        <translation>fxray %1:PyTorch 图编译器调试器。</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>取消(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Clear List</source>
        <translation>清空列表(&amp;C)</translation>
    </message>
    <message>
        <source>Open graph</source>
        <translation>打开图</translation>
    </message>
    <message>
        <source>Graphs (*.py *.log *.pt2 *.fxray *.txt *.json);;FX text (*.py);;TORCH_TRACE logs (*.log *.txt);;torch.export archives (*.pt2);;fxray sessions (*.fxray);;All files (*)</source>
        <translation>图 (*.py *.log *.pt2 *.fxray *.txt *.json);;FX 文本 (*.py);;TORCH_TRACE 日志 (*.log *.txt);;torch.export 归档 (*.pt2);;fxray 会话 (*.fxray);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Save session</source>
        <translation>保存会话</translation>
    </message>
    <message>
        <source>fxray sessions (*.fxray)</source>
        <translation>fxray 会话 (*.fxray)</translation>
    </message>
    <message>
        <source>Session saved to %1</source>
        <translation>会话已保存到 %1</translation>
    </message>
    <message>
        <source>Open folder (TORCH_TRACE, debug, to_folder output or sweep results)</source>
        <translation>打开文件夹（TORCH_TRACE、调试、to_folder 输出或 sweep 结果）</translation>
    </message>
    <message>
        <source>Loading %1...</source>
        <translation>正在加载 %1…</translation>
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
            <numerusform>%1 · %n 个节点</numerusform>
        </translation>
    </message>
    <message>
        <source>Export view</source>
        <translation>导出视图</translation>
    </message>
    <message>
        <source>%1 files (*.%2)</source>
        <translation>%1 文件 (*.%2)</translation>
    </message>
    <message>
        <source>Exported %1</source>
        <translation>已导出 %1</translation>
    </message>
    <message>
        <source>The language changes when fxray is restarted.</source>
        <translation>语言将在重新启动 fxray 后更改。</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Compile story</source>
        <translation>编译过程</translation>
    </message>
    <message>
        <source>Minifier: the failing graph is current; choose what counts as failing and run</source>
        <translation>最小化器：失败的图已是当前图；选择何为失败后运行</translation>
    </message>
    <message>
        <source>Learn: the bundled sample could not be unpacked to %1</source>
        <translation>学习：无法将内置示例解压到 %1</translation>
    </message>
    <message>
        <source>Learn: compiling the sample failed</source>
        <translation>学习：编译示例失败</translation>
    </message>
    <message>
        <source>Learn: a small attention model&apos;s joint graph, pass by pass. The explanation of each pass is beside the pass list; F8 steps to the next pass, Shift+F8 back.</source>
        <translation>学习：一个小型注意力模型的联合图，逐个 pass 查看。每个 pass 的说明在 pass 列表旁边；F8 前进到下一个 pass，Shift+F8 后退。</translation>
    </message>
    <message>
        <source>Open a small attention model, compile it and step through the passes with their explanations</source>
        <translation>打开一个小型注意力模型，编译它，并结合说明逐个查看各个 pass</translation>
    </message>
    <message>
        <source>Lear&amp;n: a Guided Compile</source>
        <translation>学习：引导式编译(&amp;N)</translation>
    </message>
    <message>
        <source>Minifier: minifying the failing graph against PyTorch (torch.compile)</source>
        <translation>最小化器：正在针对 PyTorch（torch.compile）最小化失败的图</translation>
    </message>
</context>
<context>
    <name>fxray::views::MatchModel</name>
    <message>
        <source>%1 (%2)</source>
        <translation>%1(%2)</translation>
    </message>
    <message numerus="yes">
        <source>%n match(es)</source>
        <translation>
            <numerusform>%n 个匹配</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n near-miss(es)</source>
        <translation>
            <numerusform>%n 个近似匹配</numerusform>
        </translation>
    </message>
    <message>
        <source>match</source>
        <translation>匹配</translation>
    </message>
    <message>
        <source>match at %1</source>
        <translation>在 %1 处匹配</translation>
    </message>
    <message>
        <source>%1 → %2 nodes</source>
        <translation>%1 → %2 个节点</translation>
    </message>
    <message>
        <source>%1 ⇒ %2</source>
        <translation>%1 ⇒ %2</translation>
    </message>
    <message>
        <source>near-miss at %1</source>
        <translation>在 %1 处近似匹配</translation>
    </message>
    <message>
        <source>Matched: %1
Created: %2</source>
        <translation>匹配:%1
创建:%2</translation>
    </message>
    <message>
        <source>Rejected at %1: %2</source>
        <translation>在 %1 处被拒绝:%2</translation>
    </message>
    <message>
        <source>Pass / pattern / match</source>
        <translation>编译遍 / 模式 / 匹配</translation>
    </message>
    <message>
        <source>Count</source>
        <translation>数量</translation>
    </message>
    <message>
        <source>Nodes / reason</source>
        <translation>节点 / 原因</translation>
    </message>
</context>
<context>
    <name>fxray::views::MatchPanel</name>
    <message>
        <source>Select matched</source>
        <translation>选中匹配节点</translation>
    </message>
    <message>
        <source>Select replacement</source>
        <translation>选中替换节点</translation>
    </message>
    <message>
        <source>Select only the nodes the pattern matched</source>
        <translation>仅选中模式匹配到的节点</translation>
    </message>
    <message>
        <source>Select only the nodes the replacement created</source>
        <translation>仅选中替换所创建的节点</translation>
    </message>
    <message>
        <source>Compile the graph to see which patterns fire.</source>
        <translation>编译该图以查看哪些模式被触发。</translation>
    </message>
    <message>
        <source>No pattern matched or nearly matched in this run.</source>
        <translation>本次运行中没有模式匹配或近似匹配。</translation>
    </message>
    <message>
        <source>Pattern %1 rejected the candidate at %2:
%3</source>
        <translation>模式 %1 在 %2 处拒绝了候选:
%3</translation>
    </message>
    <message>
        <source>Pattern</source>
        <translation>模式</translation>
    </message>
    <message numerus="yes">
        <source>Matched (%n node(s))</source>
        <translation>
            <numerusform>匹配（%n 个节点）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Replacement (%n node(s))</source>
        <translation>
            <numerusform>替换（%n 个节点）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::MinifierPanel</name>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Open result</source>
        <translation>打开结果</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Injected fault (scale an op&apos;s output)</source>
        <translation>注入故障(缩放某个算子的输出)</translation>
    </message>
    <message>
        <source>Accuracy: two executors disagree</source>
        <translation>精度:两个执行器结果不一致</translation>
    </message>
    <message>
        <source>A pass fails with a message</source>
        <translation>某个编译遍失败并给出消息</translation>
    </message>
    <message>
        <source>A command exits 0</source>
        <translation>某个命令以 0 退出</translation>
    </message>
    <message>
        <source>What makes a smaller graph still interesting: it must fail the same way</source>
        <translation>较小的图仍然有意义的条件:它必须以相同方式失败</translation>
    </message>
    <message>
        <source>The op whose output is scaled on the tested side (the clean reference executor is the other side)</source>
        <translation>在被测一侧缩放其输出的算子(另一侧是未修改的参考执行器)</translation>
    </message>
    <message>
        <source>Reference side vs tested side, judged like PyTorch&apos;s same(): ref is the fp32 reference executor, ref64 the same in fp64, cpu and cuda the compiled backends</source>
        <translation>参考侧与被测侧,按 PyTorch 的 same() 判定:ref 为 fp32 参考执行器,ref64 为其 fp64 版本,cpu 和 cuda 为编译后端</translation>
    </message>
    <message>
        <source>regular expression the failure message must match (empty: any)</source>
        <translation>失败消息必须匹配的正则表达式(为空:任意)</translation>
    </message>
    <message>
        <source>shell command run in the candidate&apos;s folder; exit 0 = still failing</source>
        <translation>在候选文件夹中运行的 shell 命令;退出码 0 = 仍然失败</translation>
    </message>
    <message>
        <source>Queries run at once, each in its own process</source>
        <translation>同时运行的查询数,每个查询在独立进程中</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>A query running longer is killed and counts as a hang</source>
        <translation>运行超过此时间的查询将被终止并计为挂起</translation>
    </message>
    <message>
        <source>Op</source>
        <translation>算子</translation>
    </message>
    <message>
        <source>Scale</source>
        <translation>缩放</translation>
    </message>
    <message>
        <source>Sides</source>
        <translation>两侧</translation>
    </message>
    <message>
        <source>Pass</source>
        <translation>编译遍</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Load the minimized graph as the current file</source>
        <translation>将最小化后的图作为当前文件加载</translation>
    </message>
    <message>
        <source>Write minified.py, inputs/*.npy, repro.py, session.json and minified.fxray to a folder</source>
        <translation>将 minified.py、inputs/*.npy、repro.py、session.json 和 minified.fxray 写入文件夹</translation>
    </message>
    <message>
        <source>The smallest failing graph found so far appears here while the minifier runs.</source>
        <translation>最小化器运行时,此处显示目前找到的最小失败图。</translation>
    </message>
    <message>
        <source>Failure</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>并行数</translation>
    </message>
    <message>
        <source>Timeout</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>Export the minified repro to</source>
        <translation>将最小化复现导出到</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n node(s))</source>
        <translation>
            <numerusform>%1(%n 个节点)</numerusform>
        </translation>
    </message>
    <message>
        <source>Open a graph first.</source>
        <translation>请先打开一个图。</translation>
    </message>
    <message>
        <source>Choose the op to inject the fault into.</source>
        <translation>请选择要注入故障的算子。</translation>
    </message>
    <message>
        <source>Bad check: %1</source>
        <translation>检查无效:%1</translation>
    </message>
    <message>
        <source>Cannot find the fxray executable that runs the queries (set FXRAY_EXE).</source>
        <translation>找不到运行查询的 fxray 可执行文件(请设置 FXRAY_EXE)。</translation>
    </message>
    <message>
        <source>The file does not carry the value of constant &apos;%1&apos;; minify it with `fxray minify --constants DIR`.</source>
        <translation>该文件不包含常量 &apos;%1&apos; 的值;请使用 `fxray minify --constants DIR` 进行最小化。</translation>
    </message>
    <message>
        <source>Starting: the first query checks that the graph shows the failure…</source>
        <translation>正在开始:第一个查询检查该图是否出现此失败…</translation>
    </message>
    <message>
        <source>Cancelling: waiting for the queries in flight…</source>
        <translation>正在取消:等待进行中的查询…</translation>
    </message>
    <message numerus="yes">
        <source>%1 nodes after %n query(s) (%2)</source>
        <translation>
            <numerusform>%n 次查询后剩 %1 个节点(%2)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n query(s) · %1 → %2 nodes · %3 s · %4</source>
        <translation>
            <numerusform>%n 次查询 · %1 → %2 个节点 · %3 秒 · %4</numerusform>
        </translation>
    </message>
    <message>
        <source>Minify failed: %1</source>
        <translation>最小化失败:%1</translation>
    </message>
    <message>
        <source>Minify failed.</source>
        <translation>最小化失败。</translation>
    </message>
    <message>
        <source>Cancelled before the failure was confirmed.</source>
        <translation>在确认失败之前已取消。</translation>
    </message>
    <message>
        <source>The graph does not show the failure, nothing to minify: %1</source>
        <translation>该图未出现此失败,无需最小化:%1</translation>
    </message>
    <message numerus="yes">
        <source>%1 → %2 nodes in %n query(s) (%3 s)</source>
        <translation>
            <numerusform>%1 → %2 个节点,共 %n 次查询(%3 秒)</numerusform>
        </translation>
    </message>
    <message>
        <source>Cancelled; best so far: %1</source>
        <translation>已取消;目前最佳:%1</translation>
    </message>
    <message>
        <source>Minified: %1</source>
        <translation>已最小化:%1</translation>
    </message>
    <message>
        <source>Failure: %1</source>
        <translation>失败:%1</translation>
    </message>
    <message>
        <source>Bisection: %1</source>
        <translation>二分:%1</translation>
    </message>
    <message>
        <source>Step: %1</source>
        <translation>步骤:%1</translation>
    </message>
    <message>
        <source>Nothing to export: run the minifier first.</source>
        <translation>没有可导出的内容:请先运行最小化器。</translation>
    </message>
    <message>
        <source>Cannot create the folder %1.</source>
        <translation>无法创建文件夹 %1。</translation>
    </message>
    <message>
        <source>Export failed: %1</source>
        <translation>导出失败:%1</translation>
    </message>
    <message>
        <source>Wrote %1: minified.py, inputs/, repro.py, session.json, minified.fxray</source>
        <translation>已写入 %1:minified.py、inputs/、repro.py、session.json、minified.fxray</translation>
    </message>
    <message>
        <source>The result&apos;s session file is missing: %1</source>
        <translation>结果的会话文件缺失:%1</translation>
    </message>
    <message>
        <source>PyTorch&apos;s torch.compile fails the same way</source>
        <translation>PyTorch 的 torch.compile 以相同方式失败</translation>
    </message>
    <message>
        <source>torch-compile[:BACKEND[@DEVICE]][:KEY=VALUE,...]: each candidate&apos;s repro.py runs under torch.compile in Python with PyTorch (FXRAY_PYTHON, else python3); KEY=VALUE patch torch._inductor.config</source>
        <translation>torch-compile[:BACKEND[@DEVICE]][:KEY=VALUE,...]：每个候选图的 repro.py 在带有 PyTorch 的 Python（FXRAY_PYTHON，否则 python3）中通过 torch.compile 运行；KEY=VALUE 修改 torch._inductor.config</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>检查</translation>
    </message>
    <message>
        <source>The PyTorch check is written torch-compile[:BACKEND[@DEVICE]][:KEY=VALUE,...].</source>
        <translation>PyTorch 检查的写法是 torch-compile[:BACKEND[@DEVICE]][:KEY=VALUE,...]。</translation>
    </message>
</context>
<context>
    <name>fxray::views::Minimap</name>
    <message>
        <source>Overview: click or drag to move the view</source>
        <translation>概览:单击或拖动以移动视图</translation>
    </message>
</context>
<context>
    <name>fxray::views::NodeInspectorModel</name>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>kind</source>
        <translation>种类</translation>
    </message>
    <message>
        <source>target</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>op</source>
        <translation>算子</translation>
    </message>
    <message>
        <source>category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Schema</source>
        <translation>签名</translation>
    </message>
    <message>
        <source>%1 = %2</source>
        <translation>%1 = %2</translation>
    </message>
    <message>
        <source>returns</source>
        <translation>返回</translation>
    </message>
    <message>
        <source>(not in fxray&apos;s op registry)</source>
        <translation>(不在 fxray 的算子注册表中)</translation>
    </message>
    <message>
        <source>Arguments</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Keyword arguments</source>
        <translation>关键字参数</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>dtype</source>
        <translation>数据类型</translation>
    </message>
    <message>
        <source>shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>strides</source>
        <translation>步长</translation>
    </message>
    <message>
        <source>storage offset</source>
        <translation>存储偏移</translation>
    </message>
    <message>
        <source>bytes</source>
        <translation>字节</translation>
    </message>
    <message numerus="yes">
        <source>tuple of %n</source>
        <translation>
            <numerusform>%n 元组</numerusform>
        </translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Users</source>
        <translation>使用者</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>源代码</translation>
    </message>
    <message>
        <source>comment</source>
        <translation>注释</translation>
    </message>
    <message>
        <source>line in file</source>
        <translation>文件中的行</translation>
    </message>
    <message>
        <source>pass %1: %2</source>
        <translation>编译遍 %1:%2</translation>
    </message>
    <message>
        <source> (later)</source>
        <translation>(之后)</translation>
    </message>
    <message>
        <source>created (%1)</source>
        <translation>已创建(%1)</translation>
    </message>
    <message>
        <source>replaces %1</source>
        <translation>替换 %1</translation>
    </message>
    <message>
        <source>replaced by %1</source>
        <translation>被 %1 替换</translation>
    </message>
    <message>
        <source>erased</source>
        <translation>已删除</translation>
    </message>
    <message>
        <source> by pattern %1</source>
        <translation>(由模式 %1)</translation>
    </message>
    <message>
        <source>Provenance</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>from the file</source>
        <translation>来自文件</translation>
    </message>
    <message>
        <source>Property</source>
        <translation>属性</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>expression</source>
        <translation>表达式</translation>
    </message>
    <message>
        <source>symbols</source>
        <translation>符号</translation>
    </message>
    <message>
        <source>hints</source>
        <translation>提示值（trace）</translation>
    </message>
</context>
<context>
    <name>fxray::views::NumericsModel</name>
    <message>
        <source>first node where the backends diverge</source>
        <translation>各后端首次出现分歧的节点</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>一致</translation>
    </message>
    <message>
        <source>DIFFERS</source>
        <translation>不一致</translation>
    </message>
    <message>
        <source>rel_err %1, max_abs_err %2</source>
        <translation>rel_err %1,max_abs_err %2</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Op</source>
        <translation>算子</translation>
    </message>
    <message>
        <source>Agree</source>
        <translation>一致</translation>
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
        <translation>比较</translation>
    </message>
    <message>
        <source>fxray&apos;s CPU backend (LLVM), compared with the reference executor</source>
        <translation>fxray 的 CPU 后端(LLVM),与参考执行器比较</translation>
    </message>
    <message>
        <source>fxray&apos;s CUDA backend, compared with the reference executor (needs an NVIDIA GPU)</source>
        <translation>fxray 的 CUDA 后端,与参考执行器比较(需要 NVIDIA GPU)</translation>
    </message>
    <message>
        <source>seed </source>
        <translation>种子 </translation>
    </message>
    <message>
        <source>Seed of the random inputs (used when the file has no recorded inputs)</source>
        <translation>随机输入的种子(文件没有记录的输入时使用)</translation>
    </message>
    <message>
        <source>ref vs</source>
        <translation>ref 对比</translation>
    </message>
    <message>
        <source>The fxray executable was not found; set FXRAY_EXECUTABLE.</source>
        <translation>找不到 fxray 可执行文件;请设置 FXRAY_EXECUTABLE。</translation>
    </message>
    <message>
        <source>Compare the graph&apos;s values node by node on the chosen backends.</source>
        <translation>在所选后端上逐节点比较图的数值。</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Comparing on %1...</source>
        <translation>正在 %1 上比较...</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>Cannot start %1: %2</source>
        <translation>无法启动 %1:%2</translation>
    </message>
    <message>
        <source>Not available: %1</source>
        <translation>不可用:%1</translation>
    </message>
    <message>
        <source>fxray compare crashed; the GUI is unaffected. %1</source>
        <translation>fxray compare 崩溃了;图形界面不受影响。%1</translation>
    </message>
    <message>
        <source>fxray compare failed (exit %1): %2</source>
        <translation>fxray compare 失败(退出码 %1):%2</translation>
    </message>
    <message>
        <source>Cannot read compare&apos;s output: %1</source>
        <translation>无法读取 compare 的输出:%1</translation>
    </message>
    <message>
        <source> (differs)</source>
        <translation>(不一致)</translation>
    </message>
    <message>
        <source>First divergent node: %1 on %2 (rel_err %3)</source>
        <translation>首个分歧节点:%1,在 %2 上(rel_err %3)</translation>
    </message>
    <message>
        <source>All outputs agree (this fxray reports no per-node errors).</source>
        <translation>所有输出一致(此版本的 fxray 不报告逐节点误差)。</translation>
    </message>
    <message>
        <source>Outputs differ.</source>
        <translation>输出不一致。</translation>
    </message>
    <message>
        <source>Backends agree.</source>
        <translation>各后端一致。</translation>
    </message>
    <message>
        <source>Backends differ.</source>
        <translation>各后端不一致。</translation>
    </message>
    <message numerus="yes">
        <source>%n node(s) compared</source>
        <translation>
            <numerusform>已比较 %n 个节点</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n differ(s)</source>
        <translation>
            <numerusform>%n 个不一致</numerusform>
        </translation>
    </message>
    <message>
        <source>Comparing backends</source>
        <translation>正在比较后端</translation>
    </message>
    <message>
        <source>Where the inputs come from: a recorded run, seeded random values, or a folder of NNN.npy files</source>
        <translation>输入的来源：录制的运行、带种子的随机值，或包含 NNN.npy 文件的文件夹</translation>
    </message>
    <message>
        <source>recorded: %1</source>
        <translation>录制：%1</translation>
    </message>
    <message>
        <source>folder: %1</source>
        <translation>文件夹：%1</translation>
    </message>
    <message>
        <source>random inputs</source>
        <translation>随机输入</translation>
    </message>
    <message>
        <source>inputs folder...</source>
        <translation>输入文件夹…</translation>
    </message>
    <message>
        <source>Inputs folder (NNN.npy per placeholder)</source>
        <translation>输入文件夹（每个占位符一个 NNN.npy）</translation>
    </message>
    <message>
        <source>The inputs folder has %1 input files but the graph takes %2 inputs.</source>
        <translation>输入文件夹有 %1 个输入文件，但图需要 %2 个输入。</translation>
    </message>
    <message>
        <source>The inputs folder cannot be read: %1</source>
        <translation>无法读取输入文件夹：%1</translation>
    </message>
    <message>
        <source>The inputs folder does not fit the graph: %1</source>
        <translation>输入文件夹与图不符：%1</translation>
    </message>
    <message>
        <source>output %1%2 on %3: %4%5</source>
        <translation>输出 %1%2（%3）：%4%5</translation>
    </message>
    <message>
        <source>Sizes: %1</source>
        <translation>尺寸：%1</translation>
    </message>
</context>
<context>
    <name>fxray::views::OutputCodeView</name>
    <message>
        <source>Which of the compile&apos;s output codes (forward, backward, ...) to show</source>
        <translation>显示此次编译的哪一份输出代码（前向、反向……）</translation>
    </message>
    <message>
        <source>This compile logged no Inductor output code.</source>
        <translation>此次编译没有记录 Inductor 输出代码。</translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s), %1 linked to graph nodes; click a kernel&apos;s line to select its nodes</source>
        <translation>
            <numerusform>%n 个内核，其中 %1 个关联到图节点；点击内核的某一行即可选中其节点</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fxray::views::PartitionLanesView</name>
    <message>
        <source>Partition lanes: forward, saved tensors, backward</source>
        <translation>划分泳道：前向、保存的张量、反向</translation>
    </message>
    <message numerus="yes">
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n 个节点</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>↻ %n recomputed</source>
        <translation>
            <numerusform>↻ %n 个重新计算</numerusform>
        </translation>
    </message>
    <message>
        <source>input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>saved</source>
        <translation>已保存</translation>
    </message>
    <message>
        <source>+ saved</source>
        <translation>+ 已保存</translation>
    </message>
    <message>
        <source>− recomputed</source>
        <translation>− 重新计算</translation>
    </message>
    <message>
        <source>− not saved</source>
        <translation>− 不再保存</translation>
    </message>
    <message>
        <source>Forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>Saved for the backward</source>
        <translation>为反向保存</translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n 个张量</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n cut edge(s)</source>
        <translation>
            <numerusform>%n 条切边</numerusform>
        </translation>
    </message>
    <message>
        <source>Backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>Keys: arrows move between saved tensors, J / L jump to the next that joined / left the saved set (Shift: previous), Enter selects it in the graph.</source>
        <translation>按键：方向键在保存的张量之间移动，J / L 跳到下一个加入 / 离开保存集合的张量（Shift：上一个），Enter 在图中选中它。</translation>
    </message>
    <message>
        <source>No partition: open a joint graph (one with tangents).</source>
        <translation>没有划分：请打开联合图（带切向量的图）。</translation>
    </message>
    <message numerus="yes">
        <source>Saved %1 in %n tensor(s); %2 recomputed. Move the memory budget to see what changes.</source>
        <translation>
            <numerusform>在 %n 个张量中保存 %1；%2 个重新计算。移动内存预算可查看变化。</numerusform>
        </translation>
    </message>
    <message>
        <source>Budget %1 → %2: saved %3 → %4, %5 recomputed · %6 joined, %7 left the saved set</source>
        <translation>预算 %1 → %2：保存 %3 → %4，重新计算 %5 · %6 个加入、%7 个离开保存集合</translation>
    </message>
    <message numerus="yes">
        <source>✂ %n cut edge(s)</source>
        <translation>
            <numerusform>✂ %n 条切边</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>reads %n saved</source>
        <translation>
            <numerusform>读取 %n 个已保存张量</numerusform>
        </translation>
    </message>
    <message>
        <source>Open &amp;large</source>
        <translation>放大打开(&amp;L)</translation>
    </message>
    <message>
        <source>Float the partition pane at a size that shows all three lanes</source>
        <translation>将划分面板浮动显示，大小足以显示全部三条泳道</translation>
    </message>
</context>
<context>
    <name>fxray::views::PartitionPanel</name>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Rule</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>Op</source>
        <translation>算子</translation>
    </message>
    <message>
        <source>Partition</source>
        <translation>划分</translation>
    </message>
    <message>
        <source>Split the shown joint graph into forward and backward</source>
        <translation>将当前联合图划分为前向和反向</translation>
    </message>
    <message>
        <source>Activation memory budget: 1 saves what the fastest cut saves, 0 recomputes everything</source>
        <translation>激活内存预算:1 保存最快切分所保存的内容,0 全部重计算</translation>
    </message>
    <message>
        <source>PyTorch&apos;s figures come from the model folder&apos;s summary.json. Inductor saves parameters at no cost (they live anyway); fxray&apos;s partition here counts every input, so the two sets can differ on parameters while the bytes agree.</source>
        <translation>PyTorch 的数据来自模型文件夹中的 summary.json。Inductor 保存参数不计成本(参数本来就一直存在);此处 fxray 的划分计入所有输入,因此两个集合在参数上可能不同,而字节数一致。</translation>
    </message>
    <message>
        <source>Saved</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Banned</source>
        <translation>禁止</translation>
    </message>
    <message>
        <source>Recomputed</source>
        <translation>重计算</translation>
    </message>
    <message>
        <source>Memory budget</source>
        <translation>内存预算</translation>
    </message>
    <message>
        <source>Partition failed: %1</source>
        <translation>划分失败:%1</translation>
    </message>
    <message>
        <source>Nothing to partition: %1.</source>
        <translation>无需划分：%1。</translation>
    </message>
    <message>
        <source>Partitioning (budget %1)…</source>
        <translation>正在划分(预算 %1)…</translation>
    </message>
    <message>
        <source>Banned (%1)</source>
        <translation>禁止(%1)</translation>
    </message>
    <message>
        <source>Recomputed (%1)</source>
        <translation>重计算(%1)</translation>
    </message>
    <message>
        <source>Saved (%1)</source>
        <translation>保存(%1)</translation>
    </message>
    <message numerus="yes">
        <source>Strategy: %1 · %2 forward / %3 backward nodes · cut of %n edge(s)</source>
        <translation>
            <numerusform>策略:%1 · %2 个前向 / %3 个反向节点 · 切分 %n 条边</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>fxray saves %n value(s): </source>
        <translation>
            <numerusform>fxray 保存 %n 个值:</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 bytes (%2), activations %3 bytes</source>
        <translation>%1 字节(%2),激活 %3 字节</translation>
    </message>
    <message numerus="yes">
        <source>PyTorch saves %n value(s): </source>
        <translation>
            <numerusform>PyTorch 保存 %n 个值:</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 bytes (%2)</source>
        <translation>%1 字节(%2)</translation>
    </message>
    <message>
        <source> · differ in %1 (only fxray %2, only PyTorch %3)</source>
        <translation> · %1 个不同(仅 fxray %2,仅 PyTorch %3)</translation>
    </message>
    <message>
        <source> · same set</source>
        <translation> · 集合相同</translation>
    </message>
    <message>
        <source> (PyTorch&apos;s at budget 1.0)</source>
        <translation>(PyTorch 在预算 1.0 下的结果)</translation>
    </message>
    <message>
        <source>Lanes</source>
        <translation>泳道</translation>
    </message>
    <message>
        <source>Forward | saved tensors | backward; after a budget move, what joined or left the saved set</source>
        <translation>前向 | 保存的张量 | 反向；预算变动后，哪些张量加入或离开了保存集合</translation>
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
        <translation>失败:%1</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <source>changed</source>
        <translation>已更改</translation>
    </message>
    <message>
        <source>unchanged</source>
        <translation>未改变</translation>
    </message>
    <message>
        <source>%1 failed and was undone: %2</source>
        <translation>%1 失败并已撤销:%2</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Pass</source>
        <translation>编译遍</translation>
    </message>
    <message>
        <source>Subgraph</source>
        <translation>子图</translation>
    </message>
    <message>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
</context>
<context>
    <name>fxray::views::PhaseChart</name>
    <message>
        <source>No phase timings logged for this compile.</source>
        <translation>此次编译未记录阶段耗时。</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
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
        <translation>输入</translation>
    </message>
    <message>
        <source>saved</source>
        <translation>已保存</translation>
    </message>
    <message>
        <source>—</source>
        <translation>—</translation>
    </message>
    <message>
        <source>fxray saves %1; PyTorch recomputes it or does not need it</source>
        <translation>fxray 保存 %1;PyTorch 重计算它或不需要它</translation>
    </message>
    <message>
        <source>PyTorch saves %1; fxray does not</source>
        <translation>PyTorch 保存 %1;fxray 不保存</translation>
    </message>
    <message>
        <source>Saved value</source>
        <translation>保存的值</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Bytes</source>
        <translation>字节</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入</translation>
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
        <translation>设置</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>语言(&amp;L):</translation>
    </message>
    <message>
        <source>&amp;Theme:</source>
        <translation>主题(&amp;T):</translation>
    </message>
    <message>
        <source>A new language takes effect when fxray is restarted.</source>
        <translation>新语言将在重新启动 fxray 后生效。</translation>
    </message>
</context>
<context>
    <name>fxray::views::SizePicker</name>
    <message>
        <source>&amp;Sizes:</source>
        <translation>尺寸(&amp;S)：</translation>
    </message>
    <message>
        <source>Dynamic shapes: the value of each symbol the graph&apos;s inputs mention</source>
        <translation>动态形状：图的输入中出现的每个符号的取值</translation>
    </message>
    <message>
        <source>%1: no hint recorded for this symbol; 8 by default</source>
        <translation>%1：此符号没有录制的提示值；默认为 8</translation>
    </message>
    <message>
        <source>%1: the value the trace recorded (its hint)</source>
        <translation>%1：trace 录制的值（提示值）</translation>
    </message>
    <message>
        <source>%1 = %2: a size cannot be negative.</source>
        <translation>%1 = %2：尺寸不能为负。</translation>
    </message>
    <message>
        <source>%1 = %2 does not match the inputs folder, whose inputs have %1 = %3; choose random inputs to run at other sizes.</source>
        <translation>%1 = %2 与输入文件夹不符（其输入为 %1 = %3）；要以其他尺寸运行，请选择随机输入。</translation>
    </message>
    <message>
        <source>input %1: %2</source>
        <translation>输入 %1：%2</translation>
    </message>
    <message>
        <source>input %1 would have size %2 in dimension %3 (%4).</source>
        <translation>输入 %1 在第 %3 维的尺寸将为 %2（%4）。</translation>
    </message>
    <message>
        <source>PyTorch traces symbols for sizes of at least 2 (0 and 1 are specialized): %1.</source>
        <translation>PyTorch 只为不小于 2 的尺寸追踪符号（0 和 1 会被特化）：%1。</translation>
    </message>
</context>
<context>
    <name>fxray::views::SweepPanel</name>
    <message>
        <source>Open an fxray sweep results folder (File &gt; Open Folder) to see its graphs here.</source>
        <translation>打开 fxray sweep 结果文件夹（文件 &gt; 打开文件夹）即可在此查看其中的图。</translation>
    </message>
    <message>
        <source>Filter by graph or message</source>
        <translation>按图或消息筛选</translation>
    </message>
    <message>
        <source>&amp;Failures only</source>
        <translation>仅失败项(&amp;F)</translation>
    </message>
    <message>
        <source>Reload results</source>
        <translation>重新加载结果</translation>
    </message>
    <message>
        <source>%1 holds no sweep results.</source>
        <translation>%1 中没有 sweep 结果。</translation>
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
            <numerusform>%n 个图：%1 通过，%2 不一致，%3 不支持，%4 错误，%5 崩溃，%6 超时</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (GPU %2)</source>
        <translation>%1（GPU %2）</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Graph</source>
        <translation>图</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Max rel. error</source>
        <translation>最大相对误差</translation>
    </message>
    <message>
        <source>Seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>Worker</source>
        <translation>工作进程</translation>
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
        <translation>之前</translation>
    </message>
    <message>
        <source>After</source>
        <translation>之后</translation>
    </message>
</context>
<context>
    <name>fxray::views::TimelinePanel</name>
    <message>
        <source>Compile</source>
        <translation>编译</translation>
    </message>
    <message>
        <source>Changed passes only</source>
        <translation>仅显示有更改的编译遍</translation>
    </message>
    <message>
        <source>Show graph before</source>
        <translation>显示之前的图</translation>
    </message>
    <message>
        <source>Next Pass</source>
        <translation>下一个编译遍</translation>
    </message>
    <message>
        <source>Previous Pass</source>
        <translation>上一个编译遍</translation>
    </message>
    <message>
        <source>Pass pipeline to run on the current graph</source>
        <translation>在当前图上运行的编译遍流水线</translation>
    </message>
    <message>
        <source>Run the pipeline on the current graph and record every pass</source>
        <translation>在当前图上运行流水线并记录每个编译遍</translation>
    </message>
    <message>
        <source>Show the graph the failed pass was given</source>
        <translation>显示失败编译遍所接收的图</translation>
    </message>
    <message>
        <source>Step to the next pass (Alt+Right, F8)</source>
        <translation>转到下一个编译遍(Alt+Right,F8)</translation>
    </message>
    <message>
        <source>Step to the previous pass (Alt+Left, Shift+F8)</source>
        <translation>转到上一个编译遍(Alt+Left,Shift+F8)</translation>
    </message>
    <message numerus="yes">
        <source>%1: %n pass run(s), </source>
        <translation>
            <numerusform>%1:运行了 %n 个编译遍,</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n changed, </source>
        <translation>
            <numerusform>%n 个有更改,</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 → %2 nodes, %3 ms</source>
        <translation>%1 → %2 个节点,%3 毫秒</translation>
    </message>
    <message numerus="yes">
        <source>, %n failed</source>
        <translation>
            <numerusform>,%n 个失败</numerusform>
        </translation>
    </message>
    <message>
        <source>Not compiled: choose a pipeline and press Compile.</source>
        <translation>尚未编译:请选择流水线并点击“编译”。</translation>
    </message>
    <message>
        <source>%1 failed and was undone: %2</source>
        <translation>%1 失败并已撤销:%2</translation>
    </message>
    <message>
        <source>Select a pass in the timeline to read what it does, why, and which PyTorch function it mirrors.</source>
        <translation>在时间线中选择一个 pass，查看它做什么、为什么做，以及它对应的 PyTorch 函数。</translation>
    </message>
    <message>
        <source>No explanation is recorded for this pass.</source>
        <translation>此 pass 没有记录说明。</translation>
    </message>
    <message>
        <source>What it does:</source>
        <translation>作用：</translation>
    </message>
    <message>
        <source>Why:</source>
        <translation>原因：</translation>
    </message>
    <message>
        <source>In PyTorch:</source>
        <translation>PyTorch 中：</translation>
    </message>
</context>
</TS>
