package otel

import (
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// The bucket boundaries the GenAI conventions advise.
var (
	tokenBuckets    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	durationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
)

type instruments struct {
	tokens  metric.Int64Histogram
	chat    metric.Float64Histogram
	tool    metric.Float64Histogram
	mission metric.Float64Histogram
}

func newInstruments(m metric.Meter) (instruments, error) {
	var in instruments
	var err error
	if in.tokens, err = m.Int64Histogram(MetricTokenUsage, metric.WithUnit("{token}"),
		metric.WithDescription("Number of input and output tokens used per LLM call attempt."),
		metric.WithExplicitBucketBoundaries(tokenBuckets...)); err != nil {
		return in, err
	}
	if in.chat, err = m.Float64Histogram(MetricChatDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of each LLM call attempt."),
		metric.WithExplicitBucketBoundaries(durationBuckets...)); err != nil {
		return in, err
	}
	if in.tool, err = m.Float64Histogram(MetricToolDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of each tool call of a PTC-Lisp program."),
		metric.WithExplicitBucketBoundaries(durationBuckets...)); err != nil {
		return in, err
	}
	if in.mission, err = m.Float64Histogram(MetricMissionDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of each agent mission, nested ones included."),
		metric.WithExplicitBucketBoundaries(durationBuckets...)); err != nil {
		return in, err
	}
	return in, nil
}

// setCache keeps the attribute sets of the measurements, which are few
// (an operation, a model, tool or agent name, an error type), so that
// recording does not build and hash a set each time.
type setCache struct {
	mu   sync.Mutex
	sets map[setKey]metric.MeasurementOption
}

// setKey is the attributes of a measurement: gen_ai.operation.name op,
// nameKey = name, and error.type, gen_ai.token.type, gen_ai.provider.name
// and gen_ai.response.model when not "".
type setKey struct{ op, nameKey, name, errType, tokenType, provider, responseModel string }

// maxSets bounds the cache; past it, sets are built for each measurement.
const maxSets = 4096

// measure returns the attributes of a measurement of the tools and
// missions: gen_ai.operation.name op, nameKey = name, and error.type when
// not "".
func (o *Observer) measure(op, nameKey, name, errType string) metric.MeasurementOption {
	return o.measureSet(setKey{op: op, nameKey: nameKey, name: name, errType: errType})
}

// measureSet returns the attributes k describes.
func (o *Observer) measureSet(k setKey) metric.MeasurementOption {
	c := &o.sets
	c.mu.Lock()
	opt, ok := c.sets[k]
	c.mu.Unlock()
	if ok {
		return opt
	}
	kvs := make([]attribute.KeyValue, 0, 6)
	kvs = append(kvs, attribute.String(keyOperation, k.op))
	if k.name != "" {
		kvs = append(kvs, attribute.String(k.nameKey, k.name))
	}
	if k.errType != "" {
		kvs = append(kvs, attribute.String(keyErrorType, k.errType))
	}
	if k.tokenType != "" {
		kvs = append(kvs, attribute.String(keyTokenType, k.tokenType))
	}
	if k.provider != "" {
		kvs = append(kvs, attribute.String(keyProviderName, k.provider))
	}
	if k.responseModel != "" {
		kvs = append(kvs, attribute.String(keyResponseModel, k.responseModel))
	}
	opt = metric.WithAttributeSet(attribute.NewSet(kvs...))
	c.mu.Lock()
	if c.sets == nil {
		c.sets = map[setKey]metric.MeasurementOption{}
	}
	if len(c.sets) < maxSets {
		c.sets[k] = opt
	}
	c.mu.Unlock()
	return opt
}
