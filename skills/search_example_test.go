package skills_test

import (
	"fmt"
	"log"

	"github.com/skillrun/skillrun/skills"
)

func ExampleIndex_Search() {
	ix := skills.NewIndex([]*skills.Skill{
		{Name: "pdf-extract", Description: "Extract text and tables from scanned documents."},
		{Name: "docx-writer", Description: "Create Word documents, including ones converted from PDF."},
		{Name: "slack-gif", Description: "Make animated GIFs sized for Slack."},
	})
	results, err := ix.Search("PDF documents", nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range results {
		fmt.Println(r.Name)
	}
	// Output:
	// pdf-extract
	// docx-writer
}

func ExampleIndex_Search_regex() {
	ix := skills.NewIndex([]*skills.Skill{
		{Name: "pdf-extract", Description: "Extract text and tables from scanned documents."},
		{Name: "docx-writer", Description: "Create Word documents, including ones converted from PDF."},
		{Name: "slack-gif", Description: "Make animated GIFs sized for Slack."},
	})
	// A name match weighs 3, a description match 1.
	results, err := ix.Search(`^pdf|\bgifs?\b`, &skills.SearchOptions{Regex: true, Limit: 2})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range results {
		fmt.Println(r.Name, r.Score)
	}

	_, err = ix.Search("(pdf", &skills.SearchOptions{Regex: true})
	fmt.Println(err)
	// Output:
	// slack-gif 4
	// pdf-extract 3
	// skills: invalid search regexp "(pdf": error parsing regexp: missing closing ): `(pdf`
}
