#include "graph/partition_lanes.h"

#include "partition/partitioner.h"

#include <QCoreApplication>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace fxray::views {

namespace {

/// Region of each canvas node (by name; nodes CSE removed keep the phase their cluster had).
std::vector<NodeRegion> regionsOf(const CanvasGraph& g, const PartitionResult& pr) {
    std::vector<NodeRegion> out(g.nodes.size(), NodeRegion::Unclaimed);
    for (const auto& [name, region] : pr.regions) {
        const int i = g.indexOf(QString::fromStdString(name));
        if (i >= 0) out[static_cast<size_t>(i)] = region;
    }
    return out;
}

}  // namespace

SavedSnapshot snapshotOf(const PartitionResult& pr, const CanvasGraph& g, double budget) {
    SavedSnapshot s;
    for (const SavedValue& v : pr.saved) {
        const QString name = QString::fromStdString(v.name);
        s.bytes.insert(name, v.bytes);
        const int i = g.indexOf(name);
        s.type.insert(name, i >= 0 ? g.nodes[static_cast<size_t>(i)].type : QString());
    }
    s.savedBytes = pr.savedBytes;
    s.recomputed = static_cast<int>(pr.recomputed.size());
    s.budget = budget;
    return s;
}

PartitionLanes layoutPartitionLanes(const CanvasGraph& g, const PartitionResult& pr,
                                    const std::optional<SavedSnapshot>& before, const LaneMetrics& m) {
    PartitionLanes out;
    const QString inputsLabel = QCoreApplication::translate("PartitionLanes", "inputs");
    const QString tangentsLabel = QCoreApplication::translate("PartitionLanes", "tangents");
    const QString forwardOther = QCoreApplication::translate("PartitionLanes", "forward (outside layers)");
    const QString backwardOther = QCoreApplication::translate("PartitionLanes", "backward (outside layers)");
    const size_t n = g.nodes.size();
    const std::vector<NodeRegion> region = regionsOf(g, pr);
    QSet<QString> recomputed;
    for (const std::string& r : pr.recomputed) recomputed.insert(QString::fromStdString(r));

    // Blocks: the canvas's clusters split by lane (a cluster of the joint graph can hold nodes of
    // both: the forward epilogue computes weight views the backward uses), plus the graph's
    // inputs, its tangents and the nodes outside any cluster (small graphs have none) per lane.
    // A node's lane: the graph that computes it. The region (what the forward's outputs need)
    // is not that: the forward also computes what it saves (a dropout mask, layer-norm stats).
    QSet<QString> inForward;
    if (pr.forward)
        for (const auto& fn : pr.forward->nodes()) inForward.insert(QString::fromStdString(fn->name()));
    std::vector<int> blockOf(n, -1);
    std::map<std::pair<int, bool>, int> clusterBlock;
    std::map<QString, int> freeBlock;
    auto newBlock = [&](const QString& label, int first, bool fwd) {
        out.blocks.push_back(
            {fwd ? LaneBlock::Lane::Forward : LaneBlock::Lane::Backward, label, 0, 0, first, {}, 0, 0});
        return static_cast<int>(out.blocks.size()) - 1;
    };
    for (size_t i = 0; i < n; ++i) {
        const CanvasNode& node = g.nodes[i];
        const bool tangent = node.cls == NodeClass::Input && node.name.startsWith(QLatin1String("tangents"));
        const bool fwd = node.cls == NodeClass::Input ? !tangent
                         : pr.forward                 ? inForward.contains(node.name)
                                                      : region[i] == NodeRegion::Forward;
        int b;
        if (node.cluster >= 0) {
            auto it = clusterBlock.find({node.cluster, fwd});
            if (it == clusterBlock.end())
                it = clusterBlock
                         .emplace(
                             std::pair{node.cluster, fwd},
                             newBlock(g.clusters[static_cast<size_t>(node.cluster)].label, static_cast<int>(i), fwd))
                         .first;
            b = it->second;
        } else {
            const QString key = node.cls == NodeClass::Input ? (tangent ? tangentsLabel : inputsLabel)
                                : fwd                        ? forwardOther
                                                             : backwardOther;
            auto it = freeBlock.find(key);
            if (it == freeBlock.end()) it = freeBlock.emplace(key, newBlock(key, static_cast<int>(i), fwd)).first;
            b = it->second;
        }
        blockOf[i] = b;
        LaneBlock& blk = out.blocks[static_cast<size_t>(b)];
        ++blk.nodes;
        if (recomputed.contains(node.name)) ++blk.recomputed;
        (fwd ? out.forwardNodes : out.backwardNodes) += 1;
    }
    auto isForward = [&](int b) {
        return b >= 0 && out.blocks[static_cast<size_t>(b)].lane == LaneBlock::Lane::Forward;
    };

    // The forward block a saved tensor belongs to: that of what it views, and for an input (a
    // weight, or its transpose) the block of the input's first forward user, so that a layer's
    // weights sit beside the layer.
    int otherForward = -1;
    auto outside = [&](int first) {
        if (otherForward < 0) {
            auto it = freeBlock.find(forwardOther);
            otherForward = it != freeBlock.end() ? it->second : newBlock(forwardOther, first, true);
        }
        return otherForward;
    };
    auto producer = [&](const QString& name, bool input) {
        int i = g.indexOf(name);
        if (i < 0) return outside(static_cast<int>(n));
        // Up through views (and, for an input's view, any single-input chain) to what they view:
        // the partitioner saves views computed late in the forward (`permute` of an activation,
        // a weight's transpose) whose block says nothing about which layer they belong to.
        for (int step = 0; step < 8; ++step) {
            const CanvasNode& at = g.nodes[static_cast<size_t>(i)];
            if (at.cls == NodeClass::Input || at.inputs.size() != 1 || (!input && at.cls != NodeClass::View)) break;
            i = at.inputs.front();
        }
        const CanvasNode& node = g.nodes[static_cast<size_t>(i)];
        if (node.cls == NodeClass::Input) {
            int first = -1;
            for (int u : node.users)
                if (isForward(blockOf[static_cast<size_t>(u)]) && (first < 0 || u < first)) first = u;
            if (first >= 0) return blockOf[static_cast<size_t>(first)];
        }
        const int b = blockOf[static_cast<size_t>(i)];
        return isForward(b) ? b : outside(i);
    };

    // Cards: saved now (joined when the before lacks it), then ghosts of what left the set.
    const QSet<QString> recomputedSet = recomputed;
    for (const SavedValue& v : pr.saved) {
        LaneCard c;
        c.name = QString::fromStdString(v.name);
        const int i = g.indexOf(c.name);
        c.type = i >= 0 ? g.nodes[static_cast<size_t>(i)].type : QString();
        c.bytes = v.bytes;
        c.input = v.input;
        c.recomputed = recomputedSet.contains(c.name);
        c.state = before && !before->bytes.contains(c.name) ? LaneCard::State::Joined : LaneCard::State::Saved;
        c.block = producer(c.name, c.input);
        out.cards.push_back(std::move(c));
        out.savedBytes += v.bytes;
    }
    out.savedCount = static_cast<int>(pr.saved.size());
    QSet<QString> now;
    for (const LaneCard& c : out.cards) now.insert(c.name);
    if (before) {
        out.before = before;
        std::vector<std::pair<int, QString>> left, joined;
        for (auto it = before->bytes.cbegin(); it != before->bytes.cend(); ++it)
            if (!now.contains(it.key())) left.emplace_back(g.indexOf(it.key()), it.key());
        for (const LaneCard& c : out.cards)
            if (c.state == LaneCard::State::Joined) joined.emplace_back(g.indexOf(c.name), c.name);
        std::sort(left.begin(), left.end());
        std::sort(joined.begin(), joined.end());
        for (const auto& [i, name] : joined) out.joined << name;
        for (const auto& [i, name] : left) {
            out.left << name;
            LaneCard c;
            c.name = name;
            c.type = before->type.value(name);
            c.bytes = before->bytes.value(name);
            c.input = i >= 0 && g.nodes[static_cast<size_t>(i)].cls == NodeClass::Input;
            c.recomputed = recomputedSet.contains(name);
            c.state = LaneCard::State::Left;
            c.block = producer(name, c.input);
            out.cards.push_back(std::move(c));
        }
    }
    out.recomputedNow = static_cast<int>(pr.recomputed.size());
    QHash<QString, bool> inputSaved;
    for (const SavedValue& v : pr.saved) inputSaved.insert(QString::fromStdString(v.name), v.input);
    // The block each cut edge leaves (assigned before the geometry: it may add the block of
    // forward nodes outside the layers).
    std::vector<int> cutBlock;
    for (const CutEdge& e : pr.cut) {
        const QString name = QString::fromStdString(e.node);
        cutBlock.push_back(producer(name, inputSaved.value(name, false)));
    }

    // Geometry: forward rows (a block and its cards), then the backward placed beside what it reads.
    const double cardsWidth = m.cardColumns * (m.cardWidth + m.gap) - m.gap;
    out.forwardLane = QRectF(0, 0, m.blockWidth, 0);
    out.savedColumn = QRectF(m.blockWidth + m.laneGap, 0, cardsWidth, 0);
    out.backwardLane = QRectF(out.savedColumn.right() + m.laneGap, 0, m.blockWidth, 0);
    std::vector<int> forward, backward;
    for (size_t b = 0; b < out.blocks.size(); ++b)
        (isForward(static_cast<int>(b)) ? forward : backward).push_back(static_cast<int>(b));
    auto byFirst = [&](int a, int b) {
        return out.blocks[static_cast<size_t>(a)].firstNode < out.blocks[static_cast<size_t>(b)].firstNode;
    };
    std::stable_sort(forward.begin(), forward.end(), byFirst);
    std::stable_sort(backward.begin(), backward.end(), byFirst);
    std::vector<std::vector<int>> cardsOf(out.blocks.size());
    for (size_t c = 0; c < out.cards.size(); ++c)
        cardsOf[static_cast<size_t>(out.cards[c].block)].push_back(static_cast<int>(c));
    std::vector<QRectF> span(out.blocks.size());
    double y = m.header;
    for (int b : forward) {
        out.blocks[static_cast<size_t>(b)].rect = QRectF(out.forwardLane.left(), y, m.blockWidth, m.blockHeight);
        const std::vector<int>& cs = cardsOf[static_cast<size_t>(b)];
        for (size_t k = 0; k < cs.size(); ++k) {
            const double x = out.savedColumn.left() +
                             static_cast<double>(k % static_cast<size_t>(m.cardColumns)) * (m.cardWidth + m.gap);
            const double cy = y + static_cast<double>(k / static_cast<size_t>(m.cardColumns)) * (m.cardHeight + m.gap);
            out.cards[static_cast<size_t>(cs[k])].rect = QRectF(x, cy, m.cardWidth, m.cardHeight);
            span[static_cast<size_t>(b)] |= out.cards[static_cast<size_t>(cs[k])].rect;
        }
        const double rows = std::ceil(static_cast<double>(cs.size()) / m.cardColumns);
        y += std::max(m.blockHeight, rows * (m.cardHeight + m.gap) - m.gap) + 3 * m.gap;
    }
    double bottom = y;

    // What each backward block reads: the saved tensors (cards of saved values) among its inputs.
    QHash<QString, int> cardIndex;
    for (size_t c = 0; c < out.cards.size(); ++c)
        if (out.cards[c].state != LaneCard::State::Left) cardIndex.insert(out.cards[c].name, static_cast<int>(c));
    std::vector<QSet<int>> reads(out.blocks.size());
    for (size_t i = 0; i < n; ++i) {
        const int b = blockOf[i];
        if (b < 0 || isForward(b)) continue;
        for (int in : g.nodes[i].inputs) {
            const int c = cardIndex.value(g.nodes[static_cast<size_t>(in)].name, -1);
            if (c >= 0) reads[static_cast<size_t>(b)].insert(c);
        }
    }
    double want = m.header, placed = m.header;
    std::vector<std::pair<double, int>> order;
    for (size_t k = 0; k < backward.size(); ++k) {
        const int b = backward[k];
        const QSet<int>& rs = reads[static_cast<size_t>(b)];
        if (!rs.isEmpty()) {
            double sum = 0;
            for (int c : rs) sum += out.cards[static_cast<size_t>(c)].rect.center().y();
            want = sum / rs.size() - m.blockHeight / 2;
        }
        order.emplace_back(want, static_cast<int>(k));
    }
    std::stable_sort(order.begin(), order.end());
    for (const auto& [w, k] : order) {
        const int b = backward[static_cast<size_t>(k)];
        const double at = std::max(w, placed);
        out.blocks[static_cast<size_t>(b)].rect = QRectF(out.backwardLane.left(), at, m.blockWidth, m.blockHeight);
        placed = at + m.blockHeight + m.gap;
        bottom = std::max(bottom, placed);
    }

    // Bundles.
    QHash<QString, qint64> savedBytes;
    for (const SavedValue& v : pr.saved) savedBytes.insert(QString::fromStdString(v.name), v.bytes);
    std::map<int, LaneBundle> cut;
    for (size_t k = 0; k < pr.cut.size(); ++k) {
        const QString name = QString::fromStdString(pr.cut[k].node);
        const int b = cutBlock[k];
        LaneBundle& bundle = cut[b];
        bundle.block = b;
        ++bundle.count;
        bundle.bytes += savedBytes.value(name);
    }
    out.cutEdges = static_cast<int>(pr.cut.size());
    for (auto& [b, bundle] : cut) {
        bundle.from = out.blocks[static_cast<size_t>(b)].rect;
        bundle.to = span[static_cast<size_t>(b)].isNull()
                        ? QRectF(out.savedColumn.left(), bundle.from.top(), 1, m.blockHeight)
                        : span[static_cast<size_t>(b)];
        out.blocks[static_cast<size_t>(b)].bundled = bundle.count;
        out.blocks[static_cast<size_t>(b)].bundledBytes = bundle.bytes;
        out.cutBundles.push_back(bundle);
    }
    for (int b : backward) {
        const QSet<int>& rs = reads[static_cast<size_t>(b)];
        if (rs.isEmpty()) continue;
        LaneBundle bundle;
        bundle.block = b;
        bundle.count = static_cast<int>(rs.size());
        // The bundle leaves the column at the mean height of the cards read.
        double sum = 0;
        for (int c : rs) {
            bundle.bytes += out.cards[static_cast<size_t>(c)].bytes;
            sum += out.cards[static_cast<size_t>(c)].rect.center().y();
        }
        bundle.from = QRectF(out.savedColumn.right() - 1, sum / rs.size() - 0.5, 1, 1);
        bundle.to = out.blocks[static_cast<size_t>(b)].rect;
        out.blocks[static_cast<size_t>(b)].bundled = bundle.count;
        out.blocks[static_cast<size_t>(b)].bundledBytes = bundle.bytes;
        out.readBundles.push_back(bundle);
    }
    for (const LaneCard& c : out.cards) bottom = std::max(bottom, c.rect.bottom() + m.gap);
    out.forwardLane.setHeight(bottom);
    out.savedColumn.setHeight(bottom);
    out.backwardLane.setHeight(bottom);
    out.size = QSizeF(out.backwardLane.right(), bottom);
    return out;
}

}  // namespace fxray::views
