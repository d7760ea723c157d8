package llmfake_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/skillrun/skillrun/internal/llmfake"
)

func ExampleNewAnthropic() {
	server := llmfake.NewAnthropic(
		llmfake.Reply{Text: "Hi.", Usage: llmfake.Usage{Input: 9, Output: 2}},
		llmfake.Reply{Status: 529, Text: "Overloaded"},
	)
	defer server.Close()

	body := `{"model":"claude-x","max_tokens":100,"messages":[{"role":"user","content":"Hello"}]}`
	for range 3 {
		res, err := http.Post(server.URL+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			fmt.Println(err)
			return
		}
		var reply struct {
			StopReason string `json:"stop_reason"`
			Error      struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		json.NewDecoder(res.Body).Decode(&reply)
		res.Body.Close()
		fmt.Println(res.StatusCode, reply.StopReason+reply.Error.Message)
	}
	fmt.Println(server.Count(), "requests")
	// Output:
	// 200 end_turn
	// 529 Overloaded
	// 500 llmfake: no more replies
	// 3 requests
}
