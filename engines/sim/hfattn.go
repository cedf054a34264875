package sim

// hfAttnLayers are the config keys that make some attention layers keep
// less than the whole context: sliding windows (Mistral, Qwen2 with
// use_sliding_window, Gemma's pattern, layer_types), Llama-4's chunked
// local attention (attention_chunk_size on its RoPE layers) and linear
// attention (Qwen3-Next's linear_attention layers, a constant state).
type hfAttnLayers struct {
	LayerTypes       []string `json:"layer_types"`
	SlidingWindow    int      `json:"sliding_window"` // null in most configs
	UseSlidingWindow *bool    `json:"use_sliding_window"`
	MaxWindowLayers  int      `json:"max_window_layers"`
	WindowPattern    int      `json:"sliding_window_pattern"`
	AttnChunk        int      `json:"attention_chunk_size"`
	NoRopeLayers     []int    `json:"no_rope_layers"`
	NoRopeInterval   int      `json:"no_rope_layer_interval"`
	// FullAttnInterval: Qwen3-Next-style hybrids without layer_types,
	// every interval-th layer full attention, the rest linear.
	FullAttnInterval int `json:"full_attention_interval"`
}

// layerKinds sets the card's window and full-attention layer counts when
// the config gives some layers a window; a card without them keeps
// every layer's KV for the whole context.
func (c hfConfig) layerKinds(m *ModelCard) {
	full, window, size := c.windowLayers()
	if window == 0 && full == c.Layers {
		return
	}
	m.KVLayers, m.WindowLayers, m.SlidingWindow = full, window, size
}

// windowLayers counts full-attention and window layers (the rest, if
// any, are linear attention) and the window.
func (c hfConfig) windowLayers() (full, window, size int) {
	if len(c.LayerTypes) == c.Layers {
		for _, t := range c.LayerTypes {
			switch t {
			case "sliding_attention", "chunked_attention":
				window++
			case "linear_attention", "mamba":
			default:
				full++
			}
		}
		size = max(c.SlidingWindow, c.AttnChunk)
		if size == 0 {
			return full + window, 0, 0
		}
		return full, window, size
	}
	switch {
	case c.FullAttnInterval > 1 && c.FullAttnInterval <= c.Layers:
		return c.Layers / c.FullAttnInterval, 0, 0
	case c.AttnChunk > 0 && c.ModelType == "llama4_text":
		return c.llama4Layers()
	case c.SlidingWindow <= 0 || (c.UseSlidingWindow != nil && !*c.UseSlidingWindow):
		return c.Layers, 0, 0
	case c.WindowPattern > 1 || c.ModelType == "gemma2":
		// Gemma 3: every pattern-th layer is global; Gemma 2 alternates.
		full = c.Layers / max(c.WindowPattern, 2)
		return full, c.Layers - full, c.SlidingWindow
	case c.UseSlidingWindow != nil && c.MaxWindowLayers > 0 && c.MaxWindowLayers < c.Layers:
		// Qwen2: layers from max_window_layers on use the window.
		return c.MaxWindowLayers, c.Layers - c.MaxWindowLayers, c.SlidingWindow
	}
	return 0, c.Layers, c.SlidingWindow
}

// llama4Layers: the RoPE layers use chunked local attention, every
// no_rope_layer_interval-th (default 4) layer is global NoPE attention;
// no_rope_layers lists 1 for a RoPE layer when the config has it.
func (c hfConfig) llama4Layers() (full, window, size int) {
	if len(c.NoRopeLayers) == c.Layers {
		for _, rope := range c.NoRopeLayers {
			if rope == 0 {
				full++
			}
		}
		return full, c.Layers - full, c.AttnChunk
	}
	every := c.NoRopeInterval
	if every <= 0 {
		every = 4
	}
	full = c.Layers / every
	return full, c.Layers - full, c.AttnChunk
}
