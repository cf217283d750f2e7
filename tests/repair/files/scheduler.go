package scheduler

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"
)

// ErrQueueFull is returned when the queue holds maxPending jobs.
var ErrQueueFull = errors.New("scheduler: queue full")

const maxPending = 512

// Job is one unit of work.
type Job struct {
	ID       string
	Priority int
	Deadline time.Time
	Run      func(ctx context.Context) error
}

// Queue orders jobs by priority, then by deadline.
type Queue struct {
	pending []*Job
	retries map[string]int
}

func NewQueue() *Queue {
	return &Queue{retries: make(map[string]int)}
}

func (q *Queue) Push(job *Job) error {
	if len(q.pending) >= maxPending {
		return ErrQueueFull
	}
	q.pending = append(q.pending, job)
	sort.SliceStable(q.pending, func(i, j int) bool {
		if q.pending[i].Priority != q.pending[j].Priority {
			return q.pending[i].Priority > q.pending[j].Priority
		}
		return q.pending[i].Deadline.Before(q.pending[j].Deadline)
	})
	return nil
}

func (q *Queue) RunNext(ctx context.Context) error {
	if len(q.pending) == 0 {
		return nil
	}
	job := q.pending[0]
	q.pending = q.pending[1:]
	ctx, cancel := context.WithDeadline(ctx, job.Deadline)
	defer cancel()
	if err := job.Run(ctx); err != nil {
		q.retries[job.ID]++
		if q.retries[job.ID] < 3 {
			q.pending = append(q.pending, job)
		}
		return fmt.Errorf("job %s failed: %w", job.ID, err)
	}
	delete(q.retries, job.ID)
	return nil
}
