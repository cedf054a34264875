package bench

import (
	"slices"
	"testing"
)

func TestCheckpointSteps(t *testing.T) {
	cases := []struct {
		total int
		want  []Checkpoint
	}{
		{0, nil},
		{1, nil},
		{2, []Checkpoint{{5, 1}, {6, 1}, {7, 1}, {8, 1}, {9, 1}}},
		{5, []Checkpoint{{2, 1}, {3, 1}, {4, 2}, {5, 2}, {6, 3}, {7, 3}, {8, 4}, {9, 4}}},
		{10, []Checkpoint{{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6}, {7, 7}, {8, 8}, {9, 9}}},
		{15, []Checkpoint{{1, 1}, {2, 3}, {3, 4}, {4, 6}, {5, 7}, {6, 9}, {7, 10}, {8, 12}, {9, 13}}},
		{512, []Checkpoint{{1, 51}, {2, 102}, {3, 153}, {4, 204}, {5, 256}, {6, 307}, {7, 358}, {8, 409}, {9, 460}}},
	}
	for _, tc := range cases {
		if got := CheckpointSteps(tc.total); !slices.Equal(got, tc.want) {
			t.Errorf("CheckpointSteps(%d) = %v, want %v", tc.total, got, tc.want)
		}
	}
}
