#include "panels/size_picker.h"

#include "exec/shape_binding.h"
#include "ir/graph.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>
#include <limits>

namespace fxray::views {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

/// Spin box range: negative values can be typed so that they are refused with a reason instead
/// of silently dropped keystrokes.
constexpr int kMinSize = -(1 << 20);
constexpr int kMaxSize = std::numeric_limits<int>::max();

}  // namespace

SizePicker::SizePicker(QWidget* parent)
        : QWidget(parent), m_row(new QHBoxLayout), m_title(new QLabel(tr("&Sizes:"), this)),
          m_message(new QLabel(this)) {
    setObjectName(QStringLiteral("numerics.sizes"));
    m_message->setObjectName(QStringLiteral("numerics.sizesMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setToolTip(tr("Dynamic shapes: the value of each symbol the graph's inputs mention"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addLayout(m_row);
    layout->addWidget(m_message, 1);
    hide();
}

SizePicker::~SizePicker() = default;

void SizePicker::setGraph(const Graph* g) {
    for (QSpinBox* b : m_boxes) delete b;
    m_boxes.clear();
    m_symbols.clear();
    m_inputs.clear();
    m_pinned.reset();
    if (!g || !graphIsSymbolic(*g)) {
        m_message->clear();
        hide();
        return;
    }
    std::vector<std::string> defaulted;
    const sym::Binding start = completeBinding(*g, {}, 8, &defaulted);
    for (const std::string& s : inputSymbols(*g)) {
        auto* box = new QSpinBox(this);
        const QString name = qs(s);
        box->setObjectName(QStringLiteral("numerics.size.") + name);
        box->setRange(kMinSize, kMaxSize);
        box->setPrefix(name + QStringLiteral(" = "));
        box->setAccelerated(true);
        const auto it = start.find(s);
        box->setValue(it != start.end() ? static_cast<int>(it->second.i) : 8);
        const bool fallback = std::find(defaulted.begin(), defaulted.end(), s) != defaulted.end();
        box->setToolTip(fallback ? tr("%1: no hint recorded for this symbol; 8 by default").arg(name)
                                 : tr("%1: the value the trace recorded (its hint)").arg(name));
        connect(box, &QSpinBox::valueChanged, this, [this] {
            updateMessage();
            Q_EMIT changed();
        });
        m_row->addWidget(box);
        m_boxes.push_back(box);
        m_symbols << name;
    }
    if (!m_boxes.empty()) m_title->setBuddy(m_boxes.front());
    for (Node* ph : g->placeholders())
        if (!isSymPlaceholder(*ph) && !ph->meta.empty() && ph->meta.front().isSymbolic())
            m_inputs.push_back({qs(ph->name()), ph->meta.front()});
    show();
    updateMessage();
}

QSpinBox* SizePicker::spinBox(const QString& symbol) const {
    const qsizetype i = m_symbols.indexOf(symbol);
    return i < 0 ? nullptr : m_boxes[static_cast<size_t>(i)];
}

sym::Binding SizePicker::binding() const {
    sym::Binding b;
    for (size_t i = 0; i < m_boxes.size(); ++i)
        b[m_symbols[static_cast<qsizetype>(i)].toStdString()] = sym::Num::ofInt(m_boxes[i]->value());
    return b;
}

void SizePicker::setBinding(const sym::Binding& b) {
    for (size_t i = 0; i < m_boxes.size(); ++i) {
        const auto it = b.find(m_symbols[static_cast<qsizetype>(i)].toStdString());
        if (it == b.end()) continue;
        const int64_t v = it->second.isFloat() ? static_cast<int64_t>(it->second.d) : it->second.i;
        const QSignalBlocker block(m_boxes[i]);
        m_boxes[i]->setValue(static_cast<int>(std::clamp<int64_t>(v, kMinSize, kMaxSize)));
    }
    updateMessage();
    Q_EMIT changed();
}

QString SizePicker::sizesArgument() const {
    QStringList parts;
    for (size_t i = 0; i < m_boxes.size(); ++i)
        parts << m_symbols[static_cast<qsizetype>(i)] + QLatin1Char('=') + QString::number(m_boxes[i]->value());
    return parts.join(QLatin1Char(','));
}

void SizePicker::pin(const std::optional<sym::Binding>& folderBinding) {
    m_pinned = folderBinding;
    if (m_pinned)
        setBinding(*m_pinned);
    else
        updateMessage();
}

QString SizePicker::problem() const {
    for (size_t i = 0; i < m_boxes.size(); ++i)
        if (m_boxes[i]->value() < 0)
            return tr("%1 = %2: a size cannot be negative.")
                .arg(m_symbols[static_cast<qsizetype>(i)])
                .arg(m_boxes[i]->value());
    const sym::Binding b = binding();
    if (m_pinned) {
        for (const auto& [name, v] : b) {
            const auto it = m_pinned->find(name);
            if (it != m_pinned->end() && it->second.i != v.i)
                return tr("%1 = %2 does not match the inputs folder, whose inputs have %1 = %3; choose random inputs "
                          "to run at other sizes.")
                    .arg(qs(name))
                    .arg(v.i)
                    .arg(it->second.i);
        }
    }
    // Every symbolic input must come out with sizes >= 0 (an expression such as "s0 - 4" can
    // go negative where each symbol is fine).
    for (const SymInput& in : m_inputs) {
        auto m = bindMeta(in.meta, b);
        if (!m.ok()) return tr("input %1: %2").arg(in.name, qs(m.error().message));
        for (size_t d = 0; d < m->shape.size(); ++d)
            if (m->shape[d] < 0)
                return tr("input %1 would have size %2 in dimension %3 (%4).")
                    .arg(in.name)
                    .arg(m->shape[d])
                    .arg(d)
                    .arg(qs(in.meta.sizeAt(d).text()));
    }
    return {};
}

QString SizePicker::warning() const {
    QStringList small;
    for (size_t i = 0; i < m_boxes.size(); ++i)
        if (m_boxes[i]->value() == 0 || m_boxes[i]->value() == 1) small << m_symbols[static_cast<qsizetype>(i)];
    if (small.isEmpty()) return {};
    // PyTorch specializes sizes 0 and 1 (a symbol is traced for sizes >= 2), so such a run is
    // one the compiled graph would not have been used for.
    return tr("PyTorch traces symbols for sizes of at least 2 (0 and 1 are specialized): %1.")
        .arg(small.join(QStringLiteral(", ")));
}

void SizePicker::updateMessage() {
    const QString p = problem();
    const QString w = p.isEmpty() ? warning() : QString();
    m_message->setText(p.isEmpty() ? w : p);
    m_message->setStyleSheet(p.isEmpty() ? QString() : QStringLiteral("color: #c0392b;"));
}

}  // namespace fxray::views
