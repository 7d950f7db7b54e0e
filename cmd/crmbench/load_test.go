package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"crm/app/apptest"
	"crm/app/store"
)

// vegetaTarget is a request as the load's targeter fills it in for vegeta.
type vegetaTarget struct{ vegeta.Target }

// The mixed load with writes: its stage changes, as the bench samples a tenant and picks
// them, are accepted by the real server, and every one moves its lead to another stage
// (a no-op write would not cost the reads beside it what a real one does); the first move
// of a lead starts from the stage the sample saw, and a lead sampled twice still has one
// sequence of moves.
func TestStageMovesMoveEachLeadOnAtTheServer(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Movers")
		won := apptest.MasterID(t, e, f, store.KindStage, "Won")
		inWon := map[int64]bool{}
		for i := range 6 {
			var mod []func(*store.LeadInput)
			if i%2 == 0 {
				mod = append(mod, apptest.InStage(won))
			}
			id := apptest.AddLead(t, e, f, 0, fmt.Sprintf("Mover %d", i), mod...)
			inWon[id] = i%2 == 0
		}
		api := e.APIClient(f.Admin.Email)
		cl := caller{spec: tenantSpec{name: "Movers"}, admin: session{header: http.Header{"Authorization": {"Bearer " + api.Token}}}}
		if err := cl.sample(e.Srv.URL, 6); err != nil {
			t.Fatal(err)
		}
		if len(cl.ids) <= 6 || len(cl.stageOf) != 6 {
			t.Fatalf("sampled %d ids, %d with a stage; want each of the 6 leads more than once, each with its stage", len(cl.ids), len(cl.stageOf))
		}
		for id, w := range inWon {
			if (cl.stageOf[id] == fmt.Sprint(won)) != w {
				t.Fatalf("lead %d sampled in stage %q (Won is %d)", id, cl.stageOf[id], won)
			}
		}
		moves := stageMoves(cl)
		if len(moves) != 6 {
			t.Fatalf("%d moves for 6 leads", len(moves))
		}
		p := newPicker(9)
		p.add(1, moves)
		tr := p.targeter(e.Srv.URL)
		stageNow := map[string]string{} // lead URL → its stage: as sampled, then as the server answered
		for id, stage := range cl.stageOf {
			stageNow[e.Srv.URL+stagePath(id)] = stage
		}
		moved := map[string]bool{}
		for range 3 * len(cl.masters["stage"]) * len(moves) {
			var tg vegetaTarget
			if err := tr(&tg.Target); err != nil {
				t.Fatal(err)
			}
			if tg.Method != "PATCH" || tg.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("a move sent as %s %q", tg.Method, tg.Header.Get("Content-Type"))
			}
			req, err := tg.Request()
			if err != nil {
				t.Fatal(err)
			}
			res := api.Send(req)
			if res.Status != 200 {
				t.Fatalf("PATCH %s %s: %d %s", tg.URL, tg.Body, res.Status, res.Body)
			}
			var got struct {
				Data struct {
					LeadStageID int64 `json:"lead_stage_id"`
				} `json:"data"`
			}
			apptest.MustJSON(t, res.Body, &got)
			stage := fmt.Sprint(got.Data.LeadStageID)
			if !strings.Contains(string(tg.Body), ":"+stage+"}") {
				t.Fatalf("asked %s, the lead is in stage %s", tg.Body, stage)
			}
			if stage == stageNow[tg.URL] {
				t.Fatalf("%s moved to stage %s, where it already was", tg.URL, stage)
			}
			stageNow[tg.URL], moved[tg.URL] = stage, true
		}
		if len(moved) != len(moves) {
			t.Errorf("%d of %d leads moved", len(moved), len(moves))
		}
	})
}

// The mixed load's picks keep reads as reads: GET, no body.
func TestReadsAreSentWithoutABody(t *testing.T) {
	t.Parallel()
	p := newPicker(1)
	p.add(1, []target{read(listPath+"?page=1", session{header: http.Header{"Authorization": {"Bearer x"}}})})
	var tg vegetaTarget
	if err := p.targeter("http://x")(&tg.Target); err != nil {
		t.Fatal(err)
	}
	if tg.Method != "GET" || tg.Body != nil || tg.Header.Get("Content-Type") != "" || tg.Header.Get("Authorization") != "Bearer x" {
		t.Errorf("a read sent as %s with body %q and header %v", tg.Method, tg.Body, tg.Header)
	}
}

// A tenant's sample reads pages at several depths, none past the 400th; a small tenant's,
// its one page.
func TestSamplePagesSpreadOverTheFirst400(t *testing.T) {
	t.Parallel()
	pages := samplePages(rand.New(rand.NewPCG(1, 1)), 1_000_000)
	distinct := map[int]bool{}
	for _, p := range pages {
		if p < 1 || p > 400 {
			t.Fatalf("page %d of %v", p, pages)
		}
		distinct[p] = true
	}
	if len(pages) != 10 || len(distinct) < 8 {
		t.Errorf("pages %v: want 10 at mostly different depths", pages)
	}
	for _, p := range samplePages(rand.New(rand.NewPCG(1, 1)), 60) {
		if p != 1 {
			t.Errorf("a tenant of 60 leads: page %d", p)
		}
	}
}
